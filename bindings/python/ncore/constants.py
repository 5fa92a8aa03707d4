"""nccl.core.constants: the flag enums of NCCL's #defines. They live in
_types.py with the other enums; this module is where nccl.core programs
import them from."""

from ._types import CommShrinkFlag, CommSuspendFlag, CTAPolicy, WindowFlag

__all__ = ["CTAPolicy", "CommShrinkFlag", "CommSuspendFlag", "WindowFlag"]
