"""Simulation: built-in bots, the simulator, fault injection, writing simulated logs."""
