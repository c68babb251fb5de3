/* Stand-in: see FreeRTOS.h. */
#ifndef STANDIN_TASK_H
#define STANDIN_TASK_H

#include "FreeRTOS.h"

typedef struct tskTaskControlBlock *TaskHandle_t;
typedef void (*TaskFunction_t)(void *);

TickType_t xTaskGetTickCount(void);
void vTaskDelay(TickType_t ticks);
TaskHandle_t xTaskGetCurrentTaskHandle(void);
BaseType_t xTaskCreate(TaskFunction_t fn, const char *name, configSTACK_DEPTH_TYPE depth, void *arg,
                       UBaseType_t priority, TaskHandle_t *handle);
void vTaskDelete(TaskHandle_t task);
BaseType_t xTaskNotifyGiveIndexed(TaskHandle_t task, UBaseType_t index);
uint32_t ulTaskNotifyTakeIndexed(UBaseType_t index, BaseType_t clear, TickType_t ticks);

#endif
