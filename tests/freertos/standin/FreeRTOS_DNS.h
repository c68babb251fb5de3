/* Stand-in FreeRTOS+TCP: see FreeRTOS.h. */
#ifndef STANDIN_FREERTOS_DNS_H
#define STANDIN_FREERTOS_DNS_H

#include <stdint.h>

uint32_t FreeRTOS_gethostbyname(const char *name);

#endif
