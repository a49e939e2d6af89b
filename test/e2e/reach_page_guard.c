/* reach.c with every block page-guarded, its start against an inaccessible page: the scan
 * reads each block within its bounds only, never a guard page (no fault), and finds the
 * same classes and holders.
 * e2e-options: page_guard=all:page_guard_side=start
 */
#include "reach.c"
