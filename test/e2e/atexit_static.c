/* atexit ordering with the static library: the report still runs after the handlers.
 * e2e-link: static
 */
#include "atexit_order.c"
