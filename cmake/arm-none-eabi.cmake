# Cross-compiling for Cortex-M4 with Debian's gcc-arm-none-eabi and newlib (nano). Pass with
# -DCMAKE_TOOLCHAIN_FILE=cmake/arm-none-eabi.cmake; ZM_CPU_FLAGS picks another core or FPU.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_AR arm-none-eabi-ar)
set(CMAKE_RANLIB arm-none-eabi-ranlib)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy)
set(CMAKE_SIZE arm-none-eabi-size)

set(ZM_CPU_FLAGS "-mcpu=cortex-m4 -mthumb -mfloat-abi=soft" CACHE STRING "Core and ABI flags of the target")
# Sections per function and object, so the linker drops whatever the firmware does not call.
set(CMAKE_C_FLAGS_INIT "${ZM_CPU_FLAGS} -ffunction-sections -fdata-sections")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${ZM_CPU_FLAGS} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

# There is nothing to run on the build machine: try_compile builds a library, not a program.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
