/* The int objects of ids 0 .. n - 1, one table per C module, shared by all its encoders: listing
 * the ids of an encoding is then a copy of pointers, not an allocation per token.  A 150k
 * vocabulary's ints take 6 MB; each open encoder used to keep a copy of its own.
 *
 * Every function is called with the GIL held (encoders are built, freed and list their ids under
 * it), and the table only moves inside id_ints_acquire: read tv_id_ints afresh after any call that
 * may build an encoder. */
#ifndef TOKVIZ_ID_INTS_H
#define TOKVIZ_ID_INTS_H

#include <Python.h>
#include <stddef.h>

extern PyObject **tv_id_ints; /* tv_id_ints[id]: a borrowed reference, for ids below what is held */

/* Holds the table for ids below n until the matching id_ints_release; 0, or -1 with MemoryError. */
int id_ints_acquire(size_t n);

/* Ends one hold; the table goes with the last. */
void id_ints_release(void);

#endif
