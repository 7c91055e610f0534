# SPDX-License-Identifier: MIT
# Strict warnings for every target of the project: -Wall -Wextra -Werror.
add_compile_options(-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
  -Wmissing-prototypes -Wno-unused-parameter)
