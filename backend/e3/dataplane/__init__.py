"""Clients of the data plane: requests to microservice instances run by agents."""
