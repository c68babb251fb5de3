/*
 * Stand-in FreeRTOS headers: the declarations port/freertos uses, with the kernel's names and
 * types, so that the port compiles on any machine (scripts/freertos.sh) without a FreeRTOS
 * checkout. Nothing built against them runs; the real kernel's build keeps them honest.
 */
#ifndef STANDIN_FREERTOS_H
#define STANDIN_FREERTOS_H

#include <stddef.h>
#include <stdint.h>

/* FreeRTOSConfig.h's settings the port needs */
#define configUSE_MUTEXES 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2
#define configSUPPORT_STATIC_ALLOCATION 1
#define configTICK_RATE_HZ 1000u
#define configSTACK_DEPTH_TYPE uint16_t
#define INCLUDE_vTaskDelete 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1

typedef long BaseType_t;
typedef unsigned long UBaseType_t;
typedef uint32_t TickType_t;
typedef uint32_t StackType_t;

#define portMAX_DELAY ((TickType_t)0xffffffffu)
#define pdFALSE ((BaseType_t)0)
#define pdTRUE ((BaseType_t)1)
#define pdPASS pdTRUE

#define pdFREERTOS_ERRNO_EINTR 4
#define pdFREERTOS_ERRNO_EWOULDBLOCK 11
#define pdFREERTOS_ERRNO_ENOSPC 28
#define pdFREERTOS_ERRNO_ENOTCONN 128
#define pdFREERTOS_ERRNO_ETIMEDOUT 116

void *pvPortMalloc(size_t size);
void vPortFree(void *ptr);
void vPortEnterCritical(void);
void vPortExitCritical(void);
#define taskENTER_CRITICAL() vPortEnterCritical()
#define taskEXIT_CRITICAL() vPortExitCritical()

#endif
