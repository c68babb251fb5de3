/*
 * The Cortex-M System Design Kit's APB UART, as on the MPS2 boards (and in QEMU's mps2 machines):
 * one byte of holding register each way, a baud divider, separate RX and TX interrupts. This
 * driver buffers both ways in rings filled and drained by those interrupts, so the port's
 * non-blocking operations (zmote_board.h) work on the rings only and no byte is lost while the
 * application is busy, as long as the RX ring does not fill up (counted in rx_dropped).
 */
#ifndef MPS2_CMSDK_UART_H
#define MPS2_CMSDK_UART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "zmote/result.h"
#include "zmote_ring.h"

#define CMSDK_UART_RX_RING 1024u /* 90 ms of 115200 baud */
#define CMSDK_UART_TX_RING 256u

typedef struct {
    uintptr_t base;
    uint32_t pclk_hz;
    uint8_t rx_irq;
    uint8_t tx_irq;
    bool open;
    zm_ring_t rx;
    zm_ring_t tx;
    volatile uint32_t rx_dropped; /* bytes lost to a full RX ring (written by the RX handler) */
    uint8_t rx_storage[CMSDK_UART_RX_RING];
    uint8_t tx_storage[CMSDK_UART_TX_RING];
} cmsdk_uart_t;

/** The operations of zmote_board.h's zm_board_uart_t; hw is a cmsdk_uart_t. */
z_result_t cmsdk_uart_open(void *hw, uint32_t baudrate);
size_t cmsdk_uart_read(void *hw, uint8_t *buf, size_t len);
bool cmsdk_uart_readable(void *hw);
size_t cmsdk_uart_write(void *hw, const uint8_t *buf, size_t len);
void cmsdk_uart_close(void *hw);

/** True once every queued byte has left the holding register. */
bool cmsdk_uart_tx_idle(cmsdk_uart_t *u);

/** Interrupt handlers' bodies, for the vector table's entries of this UART. */
void cmsdk_uart_rx_isr(cmsdk_uart_t *u);
void cmsdk_uart_tx_isr(cmsdk_uart_t *u);

/** Sets the baud rate and enables the transmitter only, without interrupts: for a console that
 *  also prints from fault handlers. */
void cmsdk_uart_open_polled(cmsdk_uart_t *u, uint32_t baudrate);
/** Sends len bytes, spinning on the holding register (works with interrupts off). */
void cmsdk_uart_write_polled(cmsdk_uart_t *u, const uint8_t *buf, size_t len);

#endif /* MPS2_CMSDK_UART_H */
