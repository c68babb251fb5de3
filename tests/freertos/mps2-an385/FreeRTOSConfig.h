/*
 * The kernel's settings for the mps2-an385 firmware (Cortex-M3, ARM_CM3 port, heap_4), with what
 * port/freertos asks: mutexes, two task notifications per task (the last for zmote's condition
 * variables), the current task's handle, vTaskDelete; and what the firmware reports: stack
 * high-water marks (uxTaskGetSystemState) and the heap's low-water mark.
 */
#ifndef FREERTOS_CONFIG_H
#define FREERTOS_CONFIG_H

#define configCPU_CLOCK_HZ 25000000u
#define configTICK_RATE_HZ 1000u
#define configUSE_PREEMPTION 1
#define configUSE_TIME_SLICING 1
#define configMAX_PRIORITIES 8
#define configMINIMAL_STACK_SIZE 256
#define configTOTAL_HEAP_SIZE (192u * 1024u)
#define configMAX_TASK_NAME_LEN 12
#define configTICK_TYPE_WIDTH_IN_BITS TICK_TYPE_WIDTH_32_BITS
#define configIDLE_SHOULD_YIELD 1
#define configUSE_MUTEXES 1
#define configUSE_RECURSIVE_MUTEXES 0
#define configUSE_COUNTING_SEMAPHORES 1
#define configUSE_TASK_NOTIFICATIONS 1
#define configTASK_NOTIFICATION_ARRAY_ENTRIES 2
#define configQUEUE_REGISTRY_SIZE 0
#define configUSE_TIMERS 0
#define configUSE_IDLE_HOOK 0
#define configUSE_TICK_HOOK 0
#define configUSE_MALLOC_FAILED_HOOK 1
#define configCHECK_FOR_STACK_OVERFLOW 2
#define configUSE_TRACE_FACILITY 1
#define configUSE_STATS_FORMATTING_FUNCTIONS 0
#define configSUPPORT_STATIC_ALLOCATION 0
#define configSUPPORT_DYNAMIC_ALLOCATION 1
#define configUSE_CO_ROUTINES 0

#define INCLUDE_vTaskDelete 1
#define INCLUDE_vTaskDelay 1
#define INCLUDE_vTaskSuspend 1
#define INCLUDE_xTaskGetCurrentTaskHandle 1
#define INCLUDE_uxTaskGetStackHighWaterMark 1
#define INCLUDE_xTaskGetSchedulerState 1

/* Cortex-M interrupt priorities, in the top bits of the byte: the kernel's at the lowest; any
 * interrupt that calls the kernel (the Ethernet one) at or below configMAX_SYSCALL_INTERRUPT_PRIORITY. */
#define configKERNEL_INTERRUPT_PRIORITY 0xe0
#define configMAX_SYSCALL_INTERRUPT_PRIORITY 0x40

void board_assert_failed(const char *file, int line);
#define configASSERT(x)                              \
    do {                                             \
        if (!(x)) {                                  \
            board_assert_failed(__FILE__, __LINE__); \
        }                                            \
    } while (0)

#endif /* FREERTOS_CONFIG_H */
