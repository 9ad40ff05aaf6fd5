"""Generated code of the ordo.v1 contract: do not edit, run `make proto`."""
