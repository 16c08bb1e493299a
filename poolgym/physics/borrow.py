"""``borrowed``: an array's view that numba does not count references of, for the event
loop's calls; ``alive``: where the arrays lent that way may be freed.

numba counts the references of every array a compiled function is handed: an atomic
increment on entry and a decrement on exit, per array and per call. The event loop makes
a dozen such calls per event with a dozen arrays each, and that counting was about a
quarter of a shot's time (``benchmarks/results/throughput/event_loop_calls.md``). An array
with no owner record (numba's ``meminfo`` null, as ``numba.carray`` makes) is counted by
a test and a return, no atomic operation.
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


@intrinsic
def borrowed(typingctx, array):
    """``array`` itself (the same data, shape and strides) without its owner record: valid
    while ``array`` is alive, so only for a kernel that keeps ``array`` in a local of its own
    (or an argument) and never returns or stores the borrowed view."""

    def codegen(context, builder, signature, args):
        source = make_array(signature.args[0])(context, builder, value=args[0])
        view = make_array(signature.return_type)(context, builder)
        for field in ("data", "shape", "strides", "itemsize", "nitems"):
            setattr(view, field, getattr(source, field))
        view.meminfo = cgutils.get_null_value(view.meminfo.type)
        view.parent = cgutils.get_null_value(view.parent.type)
        return view._getvalue()

    return array(array), codegen


@intrinsic
def alive(typingctx, owners):
    """Nothing, done with the tuple of arrays ``owners``: numba frees an array a kernel made
    after the array's last use, so a kernel that borrows views of arrays it made and never
    uses again names them here, after the views' last use (before each return)."""

    def codegen(context, builder, signature, args):
        return context.get_dummy_value()

    return types.none(owners), codegen
