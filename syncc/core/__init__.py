"""The base layer: what every part of syncc may import (and which imports no other part)."""
