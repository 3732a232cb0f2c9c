"""Reference: out = 2 * particles.x + 1."""


def reference(particles, out, N):
    out[...] = 2.0 * particles.reshape(N, 4)[:, 0] + 1.0
