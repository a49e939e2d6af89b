/* reach.c with option leaks=lost: only the lost block and the block only it holds are
 * listed (LeakSanitizer's set), and the blocks the program still points at are counted
 * apart; they would not set the exit status.
 * e2e-options: leaks=lost
 */
#include "reach.c"
