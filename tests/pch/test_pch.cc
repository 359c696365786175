// The translation unit that builds the precompiled headers of
// tests/pch/*.h (CMake adds the header itself); no code of its own.
