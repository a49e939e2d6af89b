/* reach.c with rules that match holders (held:GLOB, suppressions=reach_held.supp): blocks
 * held by variables named g_* (directly or through other blocks) and by main's frame are
 * left out and counted apart, rule by rule; the static local's, the thread's and what the
 * program lost are still listed. g_middle holds its block only by a pointer into it: that
 * block is possibly lost, and left out as well.
 * e2e-options: suppressions=reach_held.supp
 */
#include "reach.c"
