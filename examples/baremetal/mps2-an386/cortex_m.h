/*
 * The few Cortex-M4 system registers the firmware touches (SysTick, NVIC) and the semihosting
 * call it exits through. Written out here rather than taken from CMSIS, which Debian does not
 * package for this board; the addresses are the ARMv7-M architecture's.
 */
#ifndef MPS2_CORTEX_M_H
#define MPS2_CORTEX_M_H

#include <stdint.h>

#define REG32(addr) (*(volatile uint32_t *)(uintptr_t)(addr))

#define SYST_CSR REG32(0xE000E010u) /* SysTick control and status */
#define SYST_RVR REG32(0xE000E014u) /* reload value */
#define SYST_CVR REG32(0xE000E018u) /* current value */
#define SYST_CSR_ENABLE (1u << 0)
#define SYST_CSR_TICKINT (1u << 1)
#define SYST_CSR_CLKSOURCE (1u << 2) /* the processor clock */

#define NVIC_ISER0 REG32(0xE000E100u) /* set-enable, external interrupts 0..31 */
#define NVIC_ICER0 REG32(0xE000E180u) /* clear-enable */
#define NVIC_ISPR0 REG32(0xE000E200u) /* set-pending */
#define NVIC_ICPR0 REG32(0xE000E280u) /* clear-pending */

static inline void irq_enable(unsigned irq) { NVIC_ISER0 = 1u << irq; }
static inline void irq_disable(unsigned irq) { NVIC_ICER0 = 1u << irq; }
static inline void irq_pend(unsigned irq) { NVIC_ISPR0 = 1u << irq; }
static inline void irq_unpend(unsigned irq) { NVIC_ICPR0 = 1u << irq; }

static inline void cpu_wfi(void) { __asm__ volatile("wfi" ::: "memory"); }
static inline void cpu_irq_off(void) { __asm__ volatile("cpsid i" ::: "memory"); }
static inline void cpu_irq_on(void) { __asm__ volatile("cpsie i" ::: "memory"); }

static inline uintptr_t cpu_sp(void)
{
    uintptr_t sp;
    __asm__ volatile("mov %0, sp" : "=r"(sp));
    return sp;
}

/*
 * Semihosting (ARM's debug-host calls, "bkpt 0xab" on M profile): QEMU serves them with
 * -semihosting-config enable=on,target=native. Only SYS_EXIT_EXTENDED is used: unlike SYS_EXIT
 * on 32-bit targets, it carries an exit status to QEMU's own exit code.
 */
#define SEMIHOST_SYS_EXIT_EXTENDED 0x20u
#define SEMIHOST_APPLICATION_EXIT 0x20026u

static inline uint32_t semihost_call(uint32_t op, const void *arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register const void *r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

#endif /* MPS2_CORTEX_M_H */
