/* Stand-in FreeRTOS+TCP: see FreeRTOS.h. FreeRTOSIPConfig.h's settings the port needs. */
#ifndef STANDIN_FREERTOS_IP_H
#define STANDIN_FREERTOS_IP_H

#include "FreeRTOS.h"

#define ipconfigSUPPORT_SIGNALS 1
#define ipconfigUSE_DNS 1
#define ipconfigSUPPORT_SELECT_FUNCTION 1
#define ipconfigNETWORK_MTU 1500

void FreeRTOS_ReleaseUDPPayloadBuffer(void const *buffer);

#define FreeRTOS_htons(x) ((uint16_t)(((uint16_t)(x) << 8) | ((uint16_t)(x) >> 8)))
#define FreeRTOS_ntohs(x) FreeRTOS_htons(x)

#endif
