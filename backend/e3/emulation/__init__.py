"""Emulation of a SmartNIC rack in Linux network namespaces.

`rack_plan` is the fixed addressing plan (pure data), `netns` a thin wrapper around the `ip` and
`sysctl` commands, and `rack_network` creates and destroys the rack's namespaces, veths, routes and
runtime directories from a plan. See docs/rack.md.
"""
