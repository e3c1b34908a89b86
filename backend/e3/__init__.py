"""E3 control plane: energy-efficient microservices on SmartNIC-accelerated servers."""

__version__ = "0.1.0"
