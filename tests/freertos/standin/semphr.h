/* Stand-in: see FreeRTOS.h. */
#ifndef STANDIN_SEMPHR_H
#define STANDIN_SEMPHR_H

#include "FreeRTOS.h"

typedef struct QueueDefinition *SemaphoreHandle_t;
typedef struct {
    void *dummy[20];
} StaticSemaphore_t;

SemaphoreHandle_t xSemaphoreCreateMutex(void);
SemaphoreHandle_t xSemaphoreCreateMutexStatic(StaticSemaphore_t *mem);
SemaphoreHandle_t xSemaphoreCreateBinary(void);
SemaphoreHandle_t xSemaphoreCreateBinaryStatic(StaticSemaphore_t *mem);
BaseType_t xSemaphoreTake(SemaphoreHandle_t s, TickType_t ticks);
BaseType_t xSemaphoreGive(SemaphoreHandle_t s);
void vSemaphoreDelete(SemaphoreHandle_t s);

#endif
