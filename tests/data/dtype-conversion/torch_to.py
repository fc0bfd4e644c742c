"""What torch's Tensor.to(dtype) makes of every source file, for tst_dtype_conversion.

Usage: torch_to.py DIR. For each SRC in the dtype names below, DIR/SRC.bin holds little-endian
elements of that dtype; writes DIR/SRC-DST.bin, the elements converted by torch, for every other
DST. Exit 77 (the test skips) when this Python has no torch.
"""
import os
import sys

try:
    import torch
except ImportError:
    sys.exit(77)

DTYPES = {
    "bool": torch.bool, "u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
    "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
    "f64": torch.float64,
}


def raw_bytes(tensor):
    if tensor.dtype in (torch.float16, torch.bfloat16):
        tensor = tensor.view(torch.int16)
    return tensor.numpy().tobytes()


def main(directory):
    # One thread: torch's f64 -> bf16 writes a NaN as 0xFFFF in its vectorised loop and as 0x7FC0
    # in the scalar loop that ends each thread's block; the test keeps NaNs out of the one tail.
    torch.set_num_threads(1)
    print(torch.__version__)
    for src, src_dtype in DTYPES.items():
        with open(os.path.join(directory, src + ".bin"), "rb") as f:
            data = bytearray(f.read())
        x = torch.frombuffer(data, dtype=src_dtype) if data else torch.empty(0, dtype=src_dtype)
        for dst, dst_dtype in DTYPES.items():
            if dst != src:
                with open(os.path.join(directory, f"{src}-{dst}.bin"), "wb") as f:
                    f.write(raw_bytes(x.to(dst_dtype)))


if __name__ == "__main__":
    main(sys.argv[1])
