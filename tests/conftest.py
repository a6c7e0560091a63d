"""Every compilation the tests run verifies the IR after every pass (what --verify-each does)."""
import os

os.environ["SYNCC_VERIFY_EACH"] = "1"
