# Cross-compiling for 64-bit Arm (AArch64) Linux with Debian 12's cross compiler and its arm64
# packages (scripts/setup --aarch64 installs both, and qemu-user), e.g. a kernel-only build:
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DROPECHECK_KERNEL_ONLY=ON
# ctest runs the test programs through qemu-aarch64 (CMAKE_CROSSCOMPILING_EMULATOR), which loads the
# multiarch arm64 loader and libraries (/lib/ld-linux-aarch64.so.1, /usr/lib/aarch64-linux-gnu: the
# arm64 packages' libc6:arm64). Not `-L /usr/aarch64-linux-gnu`: that loader with the multiarch
# libraries of another glibc build hangs the first pthread_create (seen with Debian 12's qemu 7.2).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Programs (python3, cmake) from the host; libraries and CMake packages of the target architecture
# only (Debian's arm64 -dev packages install into /usr/lib/aarch64-linux-gnu, headers into /usr/include).
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64)
