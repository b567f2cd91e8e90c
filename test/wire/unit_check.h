/*-------------------------------------------------------------------------
 *
 * unit_check.h
 *	  The counting checks of the wire layer's unit test programs
 *	  (the programs test/wire/NAME_test.c, make check-wire).
 *
 * CHECK(condition, format, ...) counts a check and prints the failing
 * ones with their file and line; unit_check_summary() prints the counts
 * and gives the program's exit status.  Each program includes this once.
 *
 *-------------------------------------------------------------------------
 */
#ifndef PG_TOPICS_TEST_UNIT_CHECK_H
#define PG_TOPICS_TEST_UNIT_CHECK_H

#include <stdarg.h>

static int	unit_checks;
static int	unit_failures;

#define CHECK(cond, ...) unit_check((cond), __FILE__, __LINE__, __VA_ARGS__)

static void unit_check(bool ok, const char *file, int line, const char *fmt,...)
			pg_attribute_printf(4, 5);

/* Count a check; report it if it fails */
static void
unit_check(bool ok, const char *file, int line, const char *fmt,...)
{
	va_list		ap;

	unit_checks++;
	if (ok)
		return;
	unit_failures++;
	fprintf(stderr, "%s:%d: FAILED: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Print how many checks ran and failed; the program's exit status */
static int
unit_check_summary(const char *program)
{
	printf("%s: %d checks, %d failed\n", program, unit_checks, unit_failures);
	return unit_failures == 0 ? 0 : 1;
}

#endif							/* PG_TOPICS_TEST_UNIT_CHECK_H */
