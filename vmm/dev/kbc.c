/* SPDX-License-Identifier: GPL-2.0-only */
/* The 8042 keyboard controller as far as kernels use it without a keyboard: reset and the A20 gate. */
#include "vmm/dev/kbc.h"

#define ST_OBF (1u << 0)      /* output buffer full */
#define ST_SYS (1u << 2)      /* system flag: POST passed (the command byte's bit 2) */
#define ST_CMD (1u << 3)      /* the last write was a command */
#define ST_UNLOCKED (1u << 4) /* keyboard not inhibited */
#define CB_SYS (1u << 2)
#define OUT_RESET (1u << 0) /* 0 holds the CPU in reset */
#define OUT_A20 (1u << 1)

void kbc_reset(struct kbc *k)
{
	/* SeaBIOS leaves translation, the system flag and the keyboard interrupt on. */
	*k = (struct kbc){ .cmd_byte = 0x45, .out_port = OUT_RESET | OUT_A20 };
}

static void reply(struct kbc *k, u8 val)
{
	k->data = val;
	k->data_full = true;
}

u8 kbc_read(struct kbc *k, u16 port)
{
	if (port == KBC_CMD) {
		/* The input buffer is never full: every write is taken at once. */
		return (u8)((k->data_full ? ST_OBF : 0) | (k->cmd_byte & CB_SYS ? ST_SYS : 0) |
			    (k->last_cmd ? ST_CMD : 0) | ST_UNLOCKED);
	}
	k->data_full = false;
	return k->data;
}

static bool command(struct kbc *k, u8 cmd)
{
	switch (cmd) {
	case 0x20:
		reply(k, k->cmd_byte);
		break;
	case 0x60:
	case 0xd1:
		k->pending = cmd;
		break;
	case 0xaa:
		reply(k, 0x55);
		break; /* self test passed */
	case 0xab:
	case 0xa9:
		reply(k, 0x00);
		break; /* interface tests passed */
	case 0xad:
		k->cmd_byte |= 1u << 4;
		break; /* keyboard disabled */
	case 0xae:
		k->cmd_byte &= (u8) ~(1u << 4);
		break;
	case 0xa7:
		k->cmd_byte |= 1u << 5;
		break; /* aux disabled */
	case 0xa8:
		k->cmd_byte &= (u8) ~(1u << 5);
		break;
	case 0xd0:
		reply(k, k->out_port);
		break;
	case 0xdd:
		k->out_port &= (u8)~OUT_A20;
		break;
	case 0xdf:
		k->out_port |= OUT_A20;
		break;
	default:
		/* 0xF0-0xFF pulse the output port's low lines whose bits are clear: bit 0 is
		 * the reset line. Other commands (the keyboard's own) have nobody to answer. */
		return cmd >= 0xf0 && !(cmd & 1);
	}
	return false;
}

bool kbc_write(struct kbc *k, u16 port, u8 val)
{
	k->last_cmd = port == KBC_CMD;
	if (port == KBC_CMD) {
		k->pending = 0;
		return command(k, val);
	}
	u8 cmd = k->pending;
	k->pending = 0;
	if (cmd == 0x60) {
		k->cmd_byte = val;
	} else if (cmd == 0xd1) {
		k->out_port = val;
		return !(val & OUT_RESET);
	}
	/* Data for the keyboard, which is not there: no reply, as with no keyboard plugged. */
	return false;
}

bool kbc_a20(const struct kbc *k)
{
	return k->out_port & OUT_A20;
}
