"""Every compilation the tests run verifies the IR after every pass (what --verify-each does)."""
from syncc.ir import context

context.VERIFY_EACH_DEFAULT = True
