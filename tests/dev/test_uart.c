/* SPDX-License-Identifier: GPL-2.0-only */
/* Host tests of the 16550A model (vmm/dev/uart.c): registers, FIFOs, interrupts, loopback. */
#include <string.h>
#include "tests/unit/harness.h"
#include "vmm/dev/uart.h"

enum {
	RBR = 0,
	THR = 0,
	DLL = 0,
	IER = 1,
	DLM = 1,
	IIR = 2,
	FCR = 2,
	LCR = 3,
	MCR = 4,
	LSR = 5,
	MSR = 6,
	SCR = 7
};

/* What the tx callback saw. */
static u8 sent[64];
static unsigned n_sent;

static void tx(void *ctx, u8 byte)
{
	assert_ptr_equal(ctx, sent);
	assert_true(n_sent < sizeof(sent));
	sent[n_sent++] = byte;
}

static struct uart fresh(void)
{
	struct uart u;

	memset(&u, 0x5a, sizeof(u)); /* reset must not depend on a zeroed struct */
	n_sent = 0;
	uart_reset(&u, tx, sent);
	return u;
}

/* ---- reset and plain registers ---- */

static void test_reset_values(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_int_equal(uart_read(&u, IER), 0);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	assert_int_equal(uart_read(&u, LCR), 0);
	assert_int_equal(uart_read(&u, MCR), 0);
	assert_int_equal(uart_read(&u, LSR), 0x60);
	assert_int_equal(uart_read(&u, MSR), 0xb0);
	assert_int_equal(u.rx_count, 0);
	assert_false(u.thr_irq);
	assert_false(uart_irq(&u));
}

static void test_reset_clears_state(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	uart_write(&u, IER, 0x0f);
	uart_write(&u, MCR, 0x1f);
	uart_write(&u, THR, 'x');
	uart_reset(&u, tx, sent);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	assert_int_equal(uart_read(&u, MCR), 0);
	assert_int_equal(uart_read(&u, LSR), 0x60);
	assert_int_equal(u.rx_count, 0);
}

static void test_dlab_divisor(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x05);
	uart_write(&u, LCR, 0x83);
	uart_write(&u, DLL, 0x0c);
	uart_write(&u, DLM, 0x01);
	assert_int_equal(uart_read(&u, DLL), 0x0c);
	assert_int_equal(uart_read(&u, DLM), 0x01);
	assert_int_equal(n_sent, 0); /* a divisor write is not a transmission */
	uart_write(&u, LCR, 0x03);
	assert_int_equal(uart_read(&u, LCR), 0x03);
	assert_int_equal(uart_read(&u, IER), 0x05); /* IER untouched by the DLM write */
	assert_int_equal(u.dll, 0x0c);
	assert_int_equal(u.dlm, 0x01);
}

static void test_dlab_hides_rbr(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_true(uart_rx_push(&u, 'a'));
	uart_write(&u, LCR, 0x80);
	uart_write(&u, DLL, 0x33);
	assert_int_equal(uart_read(&u, RBR), 0x33);
	assert_int_equal(u.rx_count, 1); /* the byte is still waiting */
	uart_write(&u, LCR, 0);
	assert_int_equal(uart_read(&u, RBR), 'a');
}

static void test_register_masks(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0xff);
	assert_int_equal(uart_read(&u, IER), 0x0f);
	uart_write(&u, MCR, 0xe3);
	assert_int_equal(uart_read(&u, MCR), 0x03);
	uart_write(&u, SCR, 0xa5);
	assert_int_equal(uart_read(&u, SCR), 0xa5);
	uart_write(&u, LSR, 0x00); /* factory test writes are ignored */
	assert_int_equal(uart_read(&u, LSR), 0x60);
}

/* ---- transmitter ---- */

static void test_tx_each_byte(void **state)
{
	(void)state;
	struct uart u = fresh();
	const char *msg = "umbra\n";
	for (const char *p = msg; *p; p++)
		uart_write(&u, THR, (u8)*p);
	assert_int_equal(n_sent, 6);
	assert_memory_equal(sent, msg, 6);
	assert_int_equal(uart_read(&u, LSR) & 0x60, 0x60); /* instantly empty again */
}

static void test_thre_on_enable(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x02);
	/* The IIR read that reported THRE acknowledged it. */
	assert_int_equal(uart_read(&u, IIR), 0x01);
	/* Rewriting IER with THRE already on is not a new enable. */
	uart_write(&u, IER, 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	/* Off and on again raises it (Linux's THRE-bug probe relies on this). */
	uart_write(&u, IER, 0x00);
	uart_write(&u, IER, 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x02);
}

static void test_thre_after_write(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	uart_write(&u, THR, 'a');
	assert_true(u.thr_irq);
	assert_int_equal(uart_read(&u, IIR), 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x01);
}

static void test_thre_disabled_not_reported(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, THR, 'a');
	assert_int_equal(uart_read(&u, IIR), 0x01);
	assert_true(u.thr_irq); /* not reported, so not acknowledged */
}

/* ---- receiver ---- */

static void test_rx_data_ready(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_int_equal(uart_read(&u, LSR) & 0x01, 0);
	assert_true(uart_rx_push(&u, 'k'));
	assert_int_equal(uart_read(&u, LSR), 0x61);
	assert_int_equal(uart_read(&u, RBR), 'k');
	assert_int_equal(uart_read(&u, LSR), 0x60);
	assert_int_equal(uart_read(&u, RBR), 0); /* empty: nothing to pop */
	assert_int_equal(u.rx_count, 0);
}

static void test_rda_interrupt(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x01);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	uart_rx_push(&u, 'x');
	assert_int_equal(uart_read(&u, IIR), 0x04);
	assert_int_equal(uart_read(&u, IIR), 0x04); /* only reading RBR clears it */
	uart_read(&u, RBR);
	assert_int_equal(uart_read(&u, IIR), 0x01);
}

static void test_no_fifo_holds_one_byte(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_true(uart_rx_room(&u));
	assert_true(uart_rx_push(&u, '1'));
	assert_false(uart_rx_room(&u));
	/* Without FIFOs the later byte overwrites the holding register. */
	assert_true(uart_rx_push(&u, '2'));
	assert_int_equal(uart_read(&u, LSR), 0x63); /* DR and OE */
	assert_int_equal(uart_read(&u, RBR), '2');
	assert_int_equal(uart_read(&u, LSR), 0x60);
}

static void test_fifo_order_and_overrun(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	for (unsigned i = 0; i < UART_FIFO; i++)
		assert_true(uart_rx_push(&u, (u8)('a' + i)));
	assert_false(uart_rx_room(&u));
	assert_int_equal(uart_read(&u, LSR) & 0x02, 0);
	assert_false(uart_rx_push(&u, '!'));
	assert_int_equal(uart_read(&u, LSR), 0x63);
	assert_int_equal(uart_read(&u, LSR), 0x61); /* reading LSR cleared OE */
	for (unsigned i = 0; i < UART_FIFO; i++)
		assert_int_equal(uart_read(&u, RBR), 'a' + i);
	assert_int_equal(uart_read(&u, LSR), 0x60);
}

static void test_fifo_wraps(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	for (unsigned round = 0; round < 5; round++) {
		for (unsigned i = 0; i < 7; i++)
			assert_true(uart_rx_push(&u, (u8)(round * 7 + i)));
		for (unsigned i = 0; i < 7; i++)
			assert_int_equal(uart_read(&u, RBR), round * 7 + i);
	}
	assert_int_equal(u.rx_count, 0);
}

static void test_fifo_bits_in_iir(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0xc7);
	assert_int_equal(uart_read(&u, IIR), 0xc1);
	uart_write(&u, IER, 0x02);
	assert_int_equal(uart_read(&u, IIR), 0xc2);
	uart_write(&u, FCR, 0x00);
	assert_int_equal(uart_read(&u, IIR), 0x01);
}

static void test_fcr_clear_rx(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	uart_rx_push(&u, 'a');
	uart_rx_push(&u, 'b');
	uart_write(&u, FCR, 0x01); /* no clear bit: kept */
	assert_int_equal(u.rx_count, 2);
	uart_write(&u, FCR, 0x03);
	assert_int_equal(u.rx_count, 0);
	assert_int_equal(uart_read(&u, LSR), 0x60);
	assert_int_equal(u.fcr & 0x06, 0); /* the clear bits clear themselves */
}

static void test_fcr_enable_change_clears(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_rx_push(&u, 'a');
	uart_write(&u, FCR, 0x01);
	assert_int_equal(u.rx_count, 0);
	uart_rx_push(&u, 'b');
	uart_write(&u, FCR, 0xc0); /* bit 0 clear: FIFOs off, trigger bits not programmed */
	assert_int_equal(u.rx_count, 0);
	assert_int_equal(u.fcr, 0);
}

static void test_rx_trigger_level(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x41); /* trigger at 4 */
	uart_write(&u, IER, 0x01);
	for (unsigned i = 0; i < 3; i++)
		uart_rx_push(&u, (u8)i);
	/* Below the trigger the character timeout reports the bytes (taken as elapsed). */
	assert_int_equal(uart_read(&u, IIR), 0xcc);
	uart_rx_push(&u, 3);
	assert_int_equal(uart_read(&u, IIR), 0xc4);
	uart_read(&u, RBR);
	assert_int_equal(uart_read(&u, IIR), 0xcc);
	uart_write(&u, FCR, 0xc1);	 /* trigger at 14 */
	assert_int_equal(u.rx_count, 3); /* no clear bit: the bytes stay */
	assert_int_equal(uart_read(&u, IIR), 0xcc);
}

/* ---- priorities and line status ---- */

static void test_iir_priorities(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, MCR, 0x10);
	uart_write(&u, MCR, 0x12); /* loopback RTS: CTS changes, DCTS set */
	uart_write(&u, THR, 'a');  /* looped into RX */
	uart_write(&u, THR, 'b');  /* no FIFO: overrun */
	uart_write(&u, IER, 0x0f);
	assert_int_equal(uart_read(&u, IIR), 0x06);
	uart_read(&u, LSR);
	assert_int_equal(uart_read(&u, IIR), 0x04);
	uart_read(&u, RBR);
	assert_int_equal(uart_read(&u, IIR), 0x02);
	assert_int_equal(uart_read(&u, IIR), 0x00);
	uart_read(&u, MSR);
	assert_int_equal(uart_read(&u, IIR), 0x01);
}

static void test_rls_needs_enable(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_rx_push(&u, 'a');
	uart_rx_push(&u, 'b');
	uart_write(&u, IER, 0x01);
	assert_int_equal(uart_read(&u, IIR), 0x04);
	uart_write(&u, IER, 0x05);
	assert_int_equal(uart_read(&u, IIR), 0x06);
	assert_int_equal(uart_read(&u, LSR), 0x63);
	assert_int_equal(uart_read(&u, IIR), 0x04);
}

/* ---- loopback and modem status ---- */

static void test_loopback_echo(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	uart_write(&u, MCR, 0x10);
	uart_write(&u, THR, 0x55);
	uart_write(&u, THR, 0xaa);
	assert_int_equal(n_sent, 0);
	assert_int_equal(uart_read(&u, LSR), 0x61);
	assert_int_equal(uart_read(&u, RBR), 0x55);
	assert_int_equal(uart_read(&u, RBR), 0xaa);
	uart_write(&u, MCR, 0x00);
	uart_write(&u, THR, 0x11);
	assert_int_equal(n_sent, 1);
	assert_int_equal(sent[0], 0x11);
	assert_int_equal(u.rx_count, 0);
}

static void test_loopback_refuses_input(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, MCR, 0x10);
	assert_false(uart_rx_room(&u));
	assert_false(uart_rx_push(&u, 'x'));
	assert_int_equal(u.rx_count, 0);
	assert_int_equal(uart_read(&u, LSR), 0x60); /* refused, not an overrun */
	uart_write(&u, MCR, 0x00);
	assert_true(uart_rx_room(&u));
}

static void test_loopback_msr_mapping(void **state)
{
	(void)state;
	static const struct {
		u8 mcr, msr_high;
	} map[] = {
		{ 0x01, 0x20 }, /* DTR -> DSR */
		{ 0x02, 0x10 }, /* RTS -> CTS */
		{ 0x04, 0x40 }, /* OUT1 -> RI */
		{ 0x08, 0x80 }, /* OUT2 -> DCD */
		{ 0x0f, 0xf0 }, { 0x00, 0x00 },
	};
	for (unsigned i = 0; i < ARRAY_SIZE(map); i++) {
		struct uart u = fresh();
		uart_write(&u, MCR, (u8)(0x10 | map[i].mcr));
		assert_int_equal(uart_read(&u, MSR) & 0xf0, map[i].msr_high);
	}
}

static void test_msr_deltas(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, MCR, 0x10); /* 0xb0 -> 0x00: CTS, DSR, DCD fell */
	assert_int_equal(uart_read(&u, MSR), 0x0b);
	assert_int_equal(uart_read(&u, MSR), 0x00); /* the read cleared the deltas */
	uart_write(&u, MCR, 0x14);		    /* RI rises: not a trailing edge */
	assert_int_equal(uart_read(&u, MSR), 0x40);
	uart_write(&u, MCR, 0x10); /* RI falls: TERI */
	assert_int_equal(uart_read(&u, MSR), 0x04);
	uart_write(&u, MCR, 0x1b); /* DTR, RTS, OUT2 */
	uart_write(&u, MCR, 0x1b); /* no change, deltas stay latched */
	assert_int_equal(uart_read(&u, MSR), 0xbb);
	uart_write(&u, MCR, 0x00); /* back to the cable: same inputs, no delta */
	assert_int_equal(uart_read(&u, MSR), 0xb0);
}

static void test_msi_interrupt(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x08);
	assert_int_equal(uart_read(&u, IIR), 0x01);
	uart_write(&u, MCR, 0x10);
	assert_int_equal(uart_read(&u, IIR), 0x00);
	assert_int_equal(uart_read(&u, IIR), 0x00); /* IIR does not acknowledge MSI */
	uart_read(&u, MSR);
	assert_int_equal(uart_read(&u, IIR), 0x01);
}

static void test_msr_outside_loopback(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, MCR, 0x0f);
	assert_int_equal(uart_read(&u, MSR), 0xb0);
	assert_int_equal(uart_read(&u, MSR), 0xb0);
}

/* ---- typed input queued in front of the receiver ---- */

/* Typed before the guest's driver is up: a FIFO reset (what a driver does first) cannot reach
 * the queued bytes; they reach the guest by interrupt once received-data interrupts are on. */
static void test_input_waits_for_listener(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_true(uart_input_push(&u, 'x'));
	assert_true(uart_input_push(&u, 'y'));
	assert_true(uart_input_push(&u, 'z'));
	assert_int_equal(u.rx_count, 0);
	uart_write(&u, FCR, 0x07); /* FIFOs on, both cleared */
	assert_int_equal(u.in_count, 3);
	uart_write(&u, MCR, 0x08);
	assert_false(uart_irq(&u));
	uart_write(&u, IER, 0x01);
	assert_true(uart_irq(&u));
	assert_int_equal(uart_read(&u, IIR), 0xc4); /* received data, trigger level 1 */
	assert_int_equal(uart_read(&u, RBR), 'x');
	assert_int_equal(uart_read(&u, RBR), 'y');
	assert_int_equal(uart_read(&u, RBR), 'z');
	assert_false(uart_read(&u, LSR) & 1);
	assert_false(uart_irq(&u));
}

/* A polling guest sees queued bytes in LSR and reads them in order, without a FIFO. */
static void test_input_polled(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_true(uart_input_push(&u, 'a'));
	assert_true(uart_input_push(&u, 'b'));
	assert_int_equal(uart_read(&u, LSR), 0x61);
	assert_int_equal(uart_read(&u, RBR), 'a');
	assert_int_equal(uart_read(&u, LSR), 0x61);
	assert_int_equal(uart_read(&u, RBR), 'b');
	assert_int_equal(uart_read(&u, LSR), 0x60); /* no overrun on the way */
}

/* With interrupts on, the FIFO fills from the queue as on the chip, up to its 16 bytes; a FIFO
 * reset drops what the receiver held, never what still waits in the queue. */
static void test_input_fills_fifo(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, FCR, 0x01);
	uart_write(&u, IER, 0x01);
	for (unsigned i = 0; i < 20; i++)
		assert_true(uart_input_push(&u, (u8)i));
	assert_int_equal(u.rx_count, UART_FIFO);
	assert_int_equal(u.in_count, 4);
	uart_write(&u, FCR, 0x03);
	assert_int_equal(uart_read(&u, RBR), 16);
	assert_int_equal(uart_read(&u, RBR), 17);
	assert_int_equal(uart_read(&u, RBR), 18);
	assert_int_equal(uart_read(&u, RBR), 19);
	assert_false(uart_read(&u, LSR) & 1);
}

/* A full queue refuses the byte (the caller keeps it); loopback hides the queue until it ends. */
static void test_input_queue_limits(void **state)
{
	(void)state;
	struct uart u = fresh();
	for (unsigned i = 0; i < UART_INPUT_QUEUE; i++)
		assert_true(uart_input_push(&u, (u8)i));
	assert_false(uart_input_room(&u));
	assert_false(uart_input_push(&u, 0xee));
	uart_write(&u, MCR, 0x10);
	assert_false(uart_read(&u, LSR) & 1);
	assert_int_equal(uart_read(&u, RBR), 0);
	uart_write(&u, MCR, 0x00);
	for (unsigned i = 0; i < UART_INPUT_QUEUE; i++)
		assert_int_equal(uart_read(&u, RBR), (u8)i);
	assert_true(uart_input_room(&u));
}

/* ---- the IRQ line ---- */

static void test_irq_needs_out2(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x01);
	uart_rx_push(&u, 'a');
	assert_false(uart_irq(&u));
	uart_write(&u, MCR, 0x08);
	assert_true(uart_irq(&u));
	uart_read(&u, RBR);
	assert_false(uart_irq(&u));
}

static void test_irq_follows_thre(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, MCR, 0x0b);
	assert_false(uart_irq(&u));
	uart_write(&u, IER, 0x02);
	assert_true(uart_irq(&u));
	uart_read(&u, IIR);
	assert_false(uart_irq(&u));
	uart_write(&u, THR, 'z');
	assert_true(uart_irq(&u));
	uart_write(&u, IER, 0x00);
	assert_false(uart_irq(&u));
}

/* Loopback interrupts reach the line when OUT2 is set (as in QEMU), never without it. */
static void test_irq_in_loopback_follows_out2(void **state)
{
	(void)state;
	struct uart u = fresh();
	uart_write(&u, IER, 0x02);
	uart_write(&u, MCR, 0x10);
	assert_int_equal(uart_read(&u, IIR), 0x02);
	uart_write(&u, THR, 'a');
	assert_false(uart_irq(&u));
	uart_write(&u, MCR, 0x18);
	assert_true(uart_irq(&u));
	assert_false(uart_rx_irq_enabled(&u)); /* no input from outside in loopback */
}

static void test_rx_irq_enabled(void **state)
{
	(void)state;
	struct uart u = fresh();
	assert_false(uart_rx_irq_enabled(&u));
	uart_write(&u, IER, 0x01);
	assert_false(uart_rx_irq_enabled(&u));
	uart_write(&u, MCR, 0x08);
	assert_true(uart_rx_irq_enabled(&u));
	uart_write(&u, MCR, 0x18);
	assert_false(uart_rx_irq_enabled(&u));
	uart_write(&u, MCR, 0x08);
	uart_write(&u, IER, 0x0e);
	assert_false(uart_rx_irq_enabled(&u));
}

static void test_null_tx(void **state)
{
	(void)state;
	struct uart u;
	uart_reset(&u, NULL, NULL);
	uart_write(&u, IER, 0x02);
	uart_write(&u, THR, 'q'); /* dropped, but the transmitter still empties */
	assert_int_equal(uart_read(&u, IIR), 0x02);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reset_values),
		cmocka_unit_test(test_reset_clears_state),
		cmocka_unit_test(test_dlab_divisor),
		cmocka_unit_test(test_dlab_hides_rbr),
		cmocka_unit_test(test_register_masks),
		cmocka_unit_test(test_tx_each_byte),
		cmocka_unit_test(test_thre_on_enable),
		cmocka_unit_test(test_thre_after_write),
		cmocka_unit_test(test_thre_disabled_not_reported),
		cmocka_unit_test(test_rx_data_ready),
		cmocka_unit_test(test_rda_interrupt),
		cmocka_unit_test(test_no_fifo_holds_one_byte),
		cmocka_unit_test(test_fifo_order_and_overrun),
		cmocka_unit_test(test_fifo_wraps),
		cmocka_unit_test(test_fifo_bits_in_iir),
		cmocka_unit_test(test_fcr_clear_rx),
		cmocka_unit_test(test_fcr_enable_change_clears),
		cmocka_unit_test(test_rx_trigger_level),
		cmocka_unit_test(test_iir_priorities),
		cmocka_unit_test(test_rls_needs_enable),
		cmocka_unit_test(test_loopback_echo),
		cmocka_unit_test(test_loopback_refuses_input),
		cmocka_unit_test(test_loopback_msr_mapping),
		cmocka_unit_test(test_msr_deltas),
		cmocka_unit_test(test_msi_interrupt),
		cmocka_unit_test(test_msr_outside_loopback),
		cmocka_unit_test(test_input_waits_for_listener),
		cmocka_unit_test(test_input_polled),
		cmocka_unit_test(test_input_fills_fifo),
		cmocka_unit_test(test_input_queue_limits),
		cmocka_unit_test(test_irq_needs_out2),
		cmocka_unit_test(test_irq_follows_thre),
		cmocka_unit_test(test_irq_in_loopback_follows_out2),
		cmocka_unit_test(test_rx_irq_enabled),
		cmocka_unit_test(test_null_tx),
	};
	return cmocka_run_group_tests_name("uart", tests, NULL, NULL);
}
