/* tokviz._uigate: the UI thread goes first for the GIL.
 *
 * Python threads share one GIL, handed over without priority.  While a worker runs Python code,
 * every call the UI thread makes into Qt gives the GIL away and waits to win it back, and a paint of
 * a few thousand Qt calls takes several times as long.  While the UI thread says it is busy, the
 * threads that joined the gate run a profile hook at each Python or C call: the thread gives the
 * GIL up and waits until the UI thread is idle again, at most PAUSE_NS, and then runs at least
 * FREE_NS before it pauses again (so a UI thread that waits for such a thread is slowed, never
 * stopped).  The hook is installed only while the UI thread is busy: a profile hook makes Python
 * code about twice as slow.  It is set on another thread's state with _PyEval_SetProfile (CPython's
 * own call behind PyEval_SetProfileAllThreads), under the GIL, as the UI thread changes state.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define PAUSE_NS 20000000LL /* the longest one pause */
#define FREE_NS 4000000LL   /* the shortest run between two pauses */

static atomic_int ui_busy;
static pthread_mutex_t idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond;
static _Thread_local long long free_until;
static atomic_llong paused_ns, pauses;

#if PY_VERSION_HEX >= 0x030D0000
PyAPI_FUNC(int) _PyEval_SetProfile(PyThreadState *tstate, Py_tracefunc func, PyObject *arg);
#endif

/* The thread states that joined (read and changed under the GIL). */
#define MAX_JOINED 256
static PyThreadState *joined[MAX_JOINED];
static int n_joined;

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void wait_for_idle(long long deadline) {
    struct timespec until = {(time_t)(deadline / 1000000000LL), (long)(deadline % 1000000000LL)};
    pthread_mutex_lock(&idle_lock);
    while (atomic_load_explicit(&ui_busy, memory_order_acquire)) {
        if (pthread_cond_timedwait(&idle_cond, &idle_lock, &until) != 0) break; /* (timed out) */
    }
    pthread_mutex_unlock(&idle_lock);
}

static int gate_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    (void)obj, (void)frame, (void)what, (void)arg;
    if (!atomic_load_explicit(&ui_busy, memory_order_relaxed)) return 0;
    long long start = now_ns();
    if (start < free_until) return 0;
    PyThreadState *state = PyEval_SaveThread();
    wait_for_idle(start + PAUSE_NS);
    PyEval_RestoreThread(state);
    long long end = now_ns();
    free_until = end + FREE_NS;
    atomic_fetch_add_explicit(&paused_ns, end - start, memory_order_relaxed);
    atomic_fetch_add_explicit(&pauses, 1, memory_order_relaxed);
    return 0;
}

/* Whether a thread state is still one of the interpreter's (a thread that ended without leaving
 * the gate is forgotten rather than touched). */
static int alive(PyThreadState *ts) {
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    for (PyThreadState *t = PyInterpreterState_ThreadHead(interp); t; t = PyThreadState_Next(t))
        if (t == ts) return 1;
    return 0;
}

static int set_hooks(Py_tracefunc hook) {
    for (int i = 0; i < n_joined;) {
        if (!alive(joined[i])) {
            joined[i] = joined[--n_joined];
            continue;
        }
        if (_PyEval_SetProfile(joined[i], hook, NULL) < 0) return -1;
        i++;
    }
    return 0;
}

static PyObject *set_busy(PyObject *mod, PyObject *arg) {
    (void)mod;
    int busy = PyObject_IsTrue(arg);
    if (busy < 0) return NULL;
    if (busy == atomic_load_explicit(&ui_busy, memory_order_relaxed)) Py_RETURN_NONE;
    if (set_hooks(busy ? gate_hook : NULL) < 0) return NULL;
    if (busy) {
        atomic_store_explicit(&ui_busy, 1, memory_order_release);
    } else {
        pthread_mutex_lock(&idle_lock);
        atomic_store_explicit(&ui_busy, 0, memory_order_release);
        pthread_cond_broadcast(&idle_cond);
        pthread_mutex_unlock(&idle_lock);
    }
    Py_RETURN_NONE;
}

static PyObject *join_this_thread(PyObject *mod, PyObject *noargs) {
    (void)mod, (void)noargs;
    PyThreadState *me = PyThreadState_Get();
    for (int i = 0; i < n_joined; i++)
        if (joined[i] == me) Py_RETURN_NONE;
    if (n_joined == MAX_JOINED) Py_RETURN_NONE; /* (more threads than that: the rest do not pause) */
    if (atomic_load_explicit(&ui_busy, memory_order_relaxed) && _PyEval_SetProfile(me, gate_hook, NULL) < 0) return NULL;
    joined[n_joined++] = me;
    Py_RETURN_NONE;
}

static PyObject *leave_this_thread(PyObject *mod, PyObject *noargs) {
    (void)mod, (void)noargs;
    PyThreadState *me = PyThreadState_Get();
    for (int i = 0; i < n_joined; i++) {
        if (joined[i] != me) continue;
        joined[i] = joined[--n_joined];
        if (_PyEval_SetProfile(me, NULL, NULL) < 0) return NULL;
        break;
    }
    Py_RETURN_NONE;
}

static PyObject *is_busy(PyObject *mod, PyObject *noargs) {
    (void)mod, (void)noargs;
    return PyBool_FromLong(atomic_load(&ui_busy));
}

static PyObject *stats(PyObject *mod, PyObject *noargs) {
    (void)mod, (void)noargs;
    return Py_BuildValue("(Ld)", (long long)atomic_load(&pauses), (double)atomic_load(&paused_ns) / 1e9);
}

static PyMethodDef methods[] = {
    {"set_busy", set_busy, METH_O, "set_busy(flag): the UI thread is busy (threads that joined pause) or idle"},
    {"join_this_thread", join_this_thread, METH_NOARGS,
     "join_this_thread(): this thread pauses while the UI thread is busy (it must leave before it ends)"},
    {"leave_this_thread", leave_this_thread, METH_NOARGS, "leave_this_thread(): this thread no longer pauses"},
    {"is_busy", is_busy, METH_NOARGS, "is_busy() -> whether the UI thread said it is busy"},
    {"stats", stats, METH_NOARGS, "stats() -> (pauses, seconds paused) over all threads so far"},
    {NULL},
};

static struct PyModuleDef moduledef = {
    PyModuleDef_HEAD_INIT, "tokviz._uigate", "The UI thread goes first for the GIL.", -1, methods,
};

PyMODINIT_FUNC PyInit__uigate(void) {
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&idle_cond, &attr);
    pthread_condattr_destroy(&attr);
    return PyModule_Create(&moduledef);
}
