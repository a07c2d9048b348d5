"""How the compiled engine hands its world (the tuple of state arrays) between functions.

Numba passes a tuple by value: every call between two jitted functions would copy the
whole world, some 300 machine words for its 40 arrays, and take a reference on each
array. That copying was most of the kernel's time. So an entry point borrows the
arrays (drops their memory-manager handles: the Python caller holds them for the run)
and keeps the tuple in its own stack frame; the functions it calls get a `WorldRef`, one
pointer to that tuple, and index it exactly like the tuple (``W[6]`` is the sixth array).

Other intrinsics: `prefetch`, a cache hint on an array row, and `ordered_bits`, which
turns a float into an integer of the same order (`float_from_ordered` turns it back).
"""

from __future__ import annotations

import struct

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.imputils import lower_builtin
from numba.core.typing.templates import AbstractTemplate, infer, signature
from numba.extending import intrinsic, models, register_model


class WorldRef(types.Type):
    """A pointer to a world tuple in the frame of the entry point that made it."""

    def __init__(self, tuple_type: types.BaseTuple) -> None:
        self.tuple_type = tuple_type
        super().__init__(name=f"WorldRef({tuple_type})")


@register_model(WorldRef)
class _WorldRefModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type: WorldRef) -> None:
        pointer = dmm.lookup(fe_type.tuple_type).get_value_type().as_pointer()
        super().__init__(dmm, fe_type, pointer)


def _without_handle(context, builder, array_type, value):
    """`value`, an array of `array_type`, with a constant null memory-manager handle."""
    ary = cgutils.create_struct_proxy(array_type)(context, builder, value=value)
    ary.meminfo = cgutils.get_null_value(ary.meminfo.type)
    ary.parent = cgutils.get_null_value(ary.parent.type)
    return ary._getvalue()


@intrinsic
def borrowed(typingctx, arr):
    """The array without its memory-manager handle, for use while the caller holds it.

    A borrowed array costs no atomic reference counting when it is passed or read."""

    def codegen(context, builder, signature, args):
        return _without_handle(context, builder, arr, args[0])

    return arr(arr), codegen


@intrinsic
def world_ref(typingctx, world):
    """A `WorldRef` to a copy of `world` in the calling function's frame.

    Valid until that function returns: call it only in the entry points, never in a
    function whose result could outlive the caller."""

    def codegen(context, builder, signature, args):
        slot = cgutils.alloca_once(builder, args[0].type)
        builder.store(args[0], slot)
        return slot

    return WorldRef(world)(world), codegen


@infer
class _WorldStaticGetItem(AbstractTemplate):
    """Types ``W[k]`` on a `WorldRef`, for a constant `k`, as the tuple's k-th item."""

    key = "static_getitem"

    def generic(self, args, kws):
        ref, index = args
        if isinstance(ref, WorldRef) and isinstance(index, int):
            # numba's stubs index a BaseTuple by slices only; an int gives the item type
            return signature(ref.tuple_type[index], *args)  # type: ignore[index]
        return None


@lower_builtin("static_getitem", WorldRef, types.IntegerLiteral)
def _world_static_getitem(context, builder, sig, args):
    """Loads the k-th item through the pointer: no call, no copy of the rest.

    An array comes out with a constant null memory-manager handle (the entry point
    borrowed it, so the handle in the tuple is null too): the compiler can then drop
    every reference count operation on it, which it cannot prove for a loaded handle."""
    ref, k = args
    value = builder.load(cgutils.gep_inbounds(builder, ref, 0, k))
    if isinstance(sig.return_type, types.Array):
        value = _without_handle(context, builder, sig.return_type, value)
    return value


@intrinsic
def prefetch(typingctx, arr, row):
    """Ask the CPU to start loading row `row` of `arr` into cache; changes no value.

    For rows read soon after a long gap (the next task of a stage, the attempt of the
    next event), so that the load overlaps other work instead of stalling it."""

    def codegen(context, builder, signature, args):
        ary = context.make_array(signature.args[0])(context, builder, args[0])
        stride = builder.extract_value(ary.strides, 0)
        index = context.cast(builder, args[1], signature.args[1], types.intp)
        offset = builder.mul(index, stride)
        byte = ir.IntType(8).as_pointer()
        address = builder.gep(builder.bitcast(ary.data, byte), [offset])
        fn = cgutils.get_or_insert_function(
            builder.module,
            ir.FunctionType(ir.VoidType(), [byte] + [ir.IntType(32)] * 3),
            "llvm.prefetch.p0i8",
        )
        # read access, high temporal locality, data cache
        builder.call(fn, [address] + [ir.Constant(ir.IntType(32), k) for k in (0, 3, 1)])
        return context.get_dummy_value()

    return types.void(arr, row), codegen


_SIGN_OFF = 0x7FFF_FFFF_FFFF_FFFF


def ordered_bits_py(x: float) -> int:
    """`ordered_bits` in plain Python, the twin its tests compare it with."""
    bits: int
    (bits,) = struct.unpack("<q", struct.pack("<d", x + 0.0))
    return bits ^ (_SIGN_OFF if bits < 0 else 0)


def float_from_ordered_py(bits: int) -> float:
    """`float_from_ordered` in plain Python."""
    x: float
    (x,) = struct.unpack("<d", struct.pack("<q", bits ^ (_SIGN_OFF if bits < 0 else 0)))
    return x


@intrinsic
def ordered_bits(typingctx, x):
    """An int64 that orders like float `x` (not NaN): x < y exactly when
    ordered_bits(x) < ordered_bits(y), and equal floats (0.0 and -0.0 too) give equal ints.

    Comparing and choosing between integers compiles to conditional moves, while a choice
    between floats compiles to a branch: the kernel's tree keys are kept this way."""
    if not isinstance(x, types.Float):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.float64)
        # adding +0.0 turns -0.0 into 0.0 and leaves every other float as it is
        bits = builder.bitcast(builder.fadd(value, ir.Constant(ir.DoubleType(), 0.0)), i64)
        # negative floats: the magnitude bits count the wrong way, so flip them
        sign = builder.ashr(bits, ir.Constant(i64, 63))
        return builder.xor(bits, builder.and_(sign, ir.Constant(i64, _SIGN_OFF)))

    return types.int64(x), codegen


@intrinsic
def float_from_ordered(typingctx, bits):
    """The float that `ordered_bits` turned into `bits` (0.0 for either zero)."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        value = context.cast(builder, args[0], signature.args[0], types.int64)
        sign = builder.ashr(value, ir.Constant(i64, 63))
        flipped = builder.xor(value, builder.and_(sign, ir.Constant(i64, _SIGN_OFF)))
        return builder.bitcast(flipped, ir.DoubleType())

    return types.float64(bits), codegen
