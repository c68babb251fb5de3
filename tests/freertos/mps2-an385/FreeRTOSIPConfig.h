/*
 * FreeRTOS+TCP's settings for the mps2-an385 firmware: IPv4 only, a fixed address on QEMU's
 * user-mode network (set in main.c), TCP, no DHCP or DNS (the router's address is a literal),
 * and what port/freertos asks: signals, so that shutting a socket down ends a blocked read.
 */
#ifndef FREERTOS_IP_CONFIG_H
#define FREERTOS_IP_CONFIG_H

#define ipconfigBYTE_ORDER pdFREERTOS_LITTLE_ENDIAN
#define ipconfigUSE_IPv4 1
#define ipconfigUSE_IPv6 0
#define ipconfigIPv4_BACKWARD_COMPATIBLE 1
#define ipconfigUSE_TCP 1
#define ipconfigUSE_DHCP 0
#define ipconfigUSE_DNS 0
#define ipconfigUSE_NETWORK_EVENT_HOOK 0
#define ipconfigSUPPORT_SIGNALS 1
#define ipconfigSUPPORT_SELECT_FUNCTION 0
#define ipconfigNUM_NETWORK_BUFFER_DESCRIPTORS 24
#define ipconfigEVENT_QUEUE_LENGTH (ipconfigNUM_NETWORK_BUFFER_DESCRIPTORS + 5)
#define ipconfigIP_TASK_PRIORITY (configMAX_PRIORITIES - 2)
#define ipconfigIP_TASK_STACK_SIZE_WORDS 512
#define ipconfigNETWORK_MTU 1500
#define ipconfigTCP_TX_BUFFER_LENGTH (4u * 1460u)
#define ipconfigTCP_RX_BUFFER_LENGTH (4u * 1460u)
#define ipconfigZERO_COPY_RX_DRIVER 0
#define ipconfigZERO_COPY_TX_DRIVER 0
#define ipconfigHAS_PRINTF 0
#define ipconfigHAS_DEBUG_PRINTF 0
#define ipconfigUSE_LLMNR 0
#define ipconfigUSE_NBNS 0

#endif /* FREERTOS_IP_CONFIG_H */
