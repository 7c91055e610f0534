# SPDX-License-Identifier: MIT
# Strict warnings for every target of the project: -Wall -Wextra -Werror, plus
# the C-only prototype checks (g++ rejects them).
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
  $<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>
  $<$<COMPILE_LANGUAGE:C>:-Wmissing-prototypes>)
