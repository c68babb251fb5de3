/*
 * What the pubsub app's port/freertos needs at link time, in the size table: the kernel's and the
 * board's functions as declared by the stand-in headers (tests/freertos/standin), with trivial
 * bodies. They are outside the library's share, which is what the table counts; nothing here runs.
 */
#include <stdlib.h>
#include <string.h>

#include "FreeRTOS.h"
#include "FreeRTOS_Sockets.h"
#include "semphr.h"
#include "task.h"
#include "../../port/baremetal/zmote_board.h"
#include "zmote_freertos.h"

void *pvPortMalloc(size_t size) { return malloc(size); }
void vPortFree(void *ptr) { free(ptr); }
void vPortEnterCritical(void) {}
void vPortExitCritical(void) {}
TickType_t xTaskGetTickCount(void) { return 0; }
void vTaskDelay(TickType_t ticks) { (void)ticks; }
TaskHandle_t xTaskGetCurrentTaskHandle(void) { return NULL; }
BaseType_t xTaskCreate(TaskFunction_t fn, const char *name, configSTACK_DEPTH_TYPE depth, void *arg,
                       UBaseType_t priority, TaskHandle_t *handle)
{
    (void)name;
    (void)depth;
    (void)priority;
    *handle = NULL;
    fn(arg);
    return pdPASS;
}
void vTaskDelete(TaskHandle_t task) { (void)task; }
BaseType_t xTaskNotifyGiveIndexed(TaskHandle_t task, UBaseType_t index)
{
    (void)task;
    (void)index;
    return pdPASS;
}
uint32_t ulTaskNotifyTakeIndexed(UBaseType_t index, BaseType_t clear, TickType_t ticks)
{
    (void)index;
    (void)clear;
    (void)ticks;
    return 0;
}
static SemaphoreHandle_t semaphore(StaticSemaphore_t *mem) { return (SemaphoreHandle_t)(void *)mem; }
SemaphoreHandle_t xSemaphoreCreateMutexStatic(StaticSemaphore_t *mem) { return semaphore(mem); }
SemaphoreHandle_t xSemaphoreCreateBinaryStatic(StaticSemaphore_t *mem) { return semaphore(mem); }
BaseType_t xSemaphoreTake(SemaphoreHandle_t s, TickType_t ticks)
{
    (void)s;
    (void)ticks;
    return pdTRUE;
}
BaseType_t xSemaphoreGive(SemaphoreHandle_t s)
{
    (void)s;
    return pdTRUE;
}
void vSemaphoreDelete(SemaphoreHandle_t s) { (void)s; }

BaseType_t xApplicationGetRandomNumber(uint32_t *number)
{
    *number = 4u;
    return pdTRUE;
}
void zm_board_idle(void) {}
void zm_board_console_write(const char *text, size_t len)
{
    (void)text;
    (void)len;
}
_Noreturn void zm_board_fatal(void) { abort(); }
static size_t uart_read(void *hw, uint8_t *buf, size_t len)
{
    (void)hw;
    memset(buf, 0, len);
    return len;
}
static size_t uart_write(void *hw, const uint8_t *buf, size_t len)
{
    (void)hw;
    (void)buf;
    return len;
}
static z_result_t uart_open(void *hw, uint32_t baudrate)
{
    (void)hw;
    (void)baudrate;
    return Z_OK;
}
static bool uart_readable(void *hw)
{
    (void)hw;
    return true;
}
static void uart_close(void *hw) { (void)hw; }
static const zm_board_uart_t uart = {"uart0", uart_open, uart_read, uart_readable, uart_write, uart_close, NULL};
const zm_board_uart_t *zm_board_uart(const char *name)
{
    (void)name;
    return &uart;
}
