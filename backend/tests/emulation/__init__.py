"""Tests of the emulated SmartNIC rack: its addressing plan and its network in namespaces."""
