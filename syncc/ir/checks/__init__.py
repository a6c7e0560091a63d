"""The static hazard analyses that check_hazards (passes/hazards.py) runs, one module each."""
