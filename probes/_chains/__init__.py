"""In-process chains: real serialization hops and their composition with blame."""
