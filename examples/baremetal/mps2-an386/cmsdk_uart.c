/*
 * CMSDK APB UART driver (see cmsdk_uart.h). Register facts from ARM DDI0479 (CMSDK TRM): DATA,
 * STATE (TXFULL, RXFULL, overruns), CTRL (enables), INTSTATUS (write 1 to clear), BAUDDIV
 * (pclk / baud, at least 16). The interrupt flags latch, so each handler clears its flag before
 * it looks at the holding register: a byte that moves meanwhile raises the flag again.
 */
#include "cmsdk_uart.h"

#include "cortex_m.h"

#define UART_DATA(u) REG32((u)->base + 0x00u)
#define UART_STATE(u) REG32((u)->base + 0x04u)
#define UART_CTRL(u) REG32((u)->base + 0x08u)
#define UART_INTSTATUS(u) REG32((u)->base + 0x0cu)
#define UART_BAUDDIV(u) REG32((u)->base + 0x10u)

#define STATE_TXFULL (1u << 0)
#define STATE_RXFULL (1u << 1)
#define STATE_OVERRUNS (3u << 2)
#define CTRL_TX_EN (1u << 0)
#define CTRL_RX_EN (1u << 1)
#define CTRL_TX_INTEN (1u << 2)
#define CTRL_RX_INTEN (1u << 3)
#define INT_TX (1u << 0)
#define INT_RX (1u << 1)

static bool set_baud(cmsdk_uart_t *u, uint32_t baudrate)
{
    if (baudrate == 0u || u->pclk_hz / baudrate < 16u) {
        return false;
    }
    UART_BAUDDIV(u) = u->pclk_hz / baudrate;
    return true;
}

z_result_t cmsdk_uart_open(void *hw, uint32_t baudrate)
{
    cmsdk_uart_t *u = hw;
    if (u->open) {
        return ZM_E_BUSY;
    }
    UART_CTRL(u) = 0u;
    if (!set_baud(u, baudrate)) {
        return ZM_E_UNSUPPORTED;
    }
    zm_ring_init(&u->rx, u->rx_storage, CMSDK_UART_RX_RING);
    zm_ring_init(&u->tx, u->tx_storage, CMSDK_UART_TX_RING);
    u->rx_dropped = 0u;
    UART_STATE(u) = STATE_OVERRUNS;
    UART_INTSTATUS(u) = INT_TX | INT_RX;
    irq_unpend(u->rx_irq);
    irq_unpend(u->tx_irq);
    UART_CTRL(u) = CTRL_TX_EN | CTRL_RX_EN | CTRL_TX_INTEN | CTRL_RX_INTEN;
    u->open = true;
    irq_enable(u->rx_irq);
    irq_enable(u->tx_irq);
    return Z_OK;
}

size_t cmsdk_uart_read(void *hw, uint8_t *buf, size_t len)
{
    cmsdk_uart_t *u = hw;
    return zm_ring_read(&u->rx, buf, len);
}

bool cmsdk_uart_readable(void *hw)
{
    cmsdk_uart_t *u = hw;
    return zm_ring_used(&u->rx) > 0u;
}

size_t cmsdk_uart_write(void *hw, const uint8_t *buf, size_t len)
{
    cmsdk_uart_t *u = hw;
    size_t n = zm_ring_write(&u->tx, buf, len);
    if (n > 0u) {
        /* The TX handler is the ring's only consumer; running it by hand starts an idle line, and
         * on a busy one it finds TXFULL and leaves the rest to the next TX interrupt. */
        irq_pend(u->tx_irq);
    }
    return n;
}

bool cmsdk_uart_tx_idle(cmsdk_uart_t *u)
{
    return zm_ring_used(&u->tx) == 0u && (UART_STATE(u) & STATE_TXFULL) == 0u;
}

void cmsdk_uart_close(void *hw)
{
    cmsdk_uart_t *u = hw;
    irq_disable(u->rx_irq);
    irq_disable(u->tx_irq);
    UART_CTRL(u) = 0u;
    UART_INTSTATUS(u) = INT_TX | INT_RX;
    u->open = false;
}

void cmsdk_uart_rx_isr(cmsdk_uart_t *u)
{
    UART_INTSTATUS(u) = INT_RX;
    while ((UART_STATE(u) & STATE_RXFULL) != 0u) {
        uint8_t byte = (uint8_t)UART_DATA(u);
        if (!zm_ring_put(&u->rx, byte)) {
            u->rx_dropped++;
        }
    }
}

void cmsdk_uart_tx_isr(cmsdk_uart_t *u)
{
    UART_INTSTATUS(u) = INT_TX;
    uint8_t byte;
    while ((UART_STATE(u) & STATE_TXFULL) == 0u && zm_ring_get(&u->tx, &byte)) {
        UART_DATA(u) = byte;
    }
}

void cmsdk_uart_open_polled(cmsdk_uart_t *u, uint32_t baudrate)
{
    UART_CTRL(u) = 0u;
    (void)set_baud(u, baudrate);
    UART_CTRL(u) = CTRL_TX_EN;
}

void cmsdk_uart_write_polled(cmsdk_uart_t *u, const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((UART_STATE(u) & STATE_TXFULL) != 0u) {
        }
        UART_DATA(u) = buf[i];
    }
}
