# The layers, enforced on the includes: every quoted #include of every C++ and
# CUDA source under ROOT's model/, kernels/, sim/, sweep/, validate/ and reports/ is
# classed by what it reaches, and each folder (and, in kernels/, each kind of
# file) may reach only the layers below it (STYLE.md 1):
#
#   kernels/layer/         the kernel layer only
#   kernels/**/*.cuh       kernel bodies: the kernel layer and other kernel bodies
#   kernels/**/*.sim.cpp   simulator registrations: + model, the families' headers, sim
#   kernels/**/*.suite.cpp, *.gpu.cu, *.gpu.cuh   suites and GPU registrations: + model, the families' headers, validate
#   kernels/ (the rest)    run headers: the kernel layer, model, the families' headers
#   model/                 model only
#   sim/estimators/        the kernel layer, model, sim, the families' headers
#   sim/                   the kernel layer, model, sim
#   sweep/                 the kernel layer, model, sim, sweep
#   validate/              the kernel layer, model, sim, validate
#   reports/               model, sim, sweep, validate, reports
#
# Tests (a tests/ folder), benchmarks (bench/), fuzz targets and the command
# line (cli/) may include anything. An include that names a file beside the
# including one is its own folder's. What an include reaches: agpu/kl/ the
# kernel layer; agpu/model/ and agpu/{errors,registry,build_info,utc_time}.hpp
# model; agpu/sim/ and estimators/ sim; agpu/sweep/ sweep; agpu/validate/ validate;
# agpu/reports/ reports; <family>/... (a folder of kernels/) the families'
# headers, a .cuh among them a kernel body; a file found in a folder above the
# including one, within its top folder, its own folder's.
#
#   cmake -DROOT=<repository> -P cmake/check_layers.cmake
#
# Exits non-zero, listing every violation (file, include, rule), if any.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  message(FATAL_ERROR "check_layers: pass -DROOT=<repository root>")
endif()

# The layer an include reaches, into ${out}; "" where it names nothing known.
# `including_dir` is the including file's folder, `top` its top folder.
function(reached include including_dir top out)
  if(EXISTS "${including_dir}/${include}")
    set(${out} local PARENT_SCOPE)
  elseif(include MATCHES "^agpu/kl/")
    set(${out} kl PARENT_SCOPE)
  elseif(include MATCHES "^agpu/model/" OR include MATCHES "^agpu/(errors|registry|build_info|utc_time)\\.hpp$")
    set(${out} model PARENT_SCOPE)
  elseif(include MATCHES "^agpu/sim/" OR include MATCHES "^estimators/")
    set(${out} sim PARENT_SCOPE)
  elseif(include MATCHES "^agpu/sweep/")
    set(${out} sweep PARENT_SCOPE)
  elseif(include MATCHES "^agpu/validate/")
    set(${out} validate PARENT_SCOPE)
  elseif(include MATCHES "^agpu/reports/")
    set(${out} reports PARENT_SCOPE)
  elseif(include MATCHES "^([^/]+)/" AND IS_DIRECTORY "${ROOT}/kernels/${CMAKE_MATCH_1}"
         AND NOT CMAKE_MATCH_1 STREQUAL "layer")
    if(include MATCHES "\\.cuh$")
      set(${out} body PARENT_SCOPE)
    else()
      set(${out} family PARENT_SCOPE)
    endif()
  else()
    # A file of the including file's own folder, from a folder above it (a
    # library's private src/ on its include path).
    set(${out} "" PARENT_SCOPE)
    set(dir "${including_dir}")
    while(dir MATCHES "^${ROOT}/${top}(/|$)")
      if(EXISTS "${dir}/${include}")
        set(${out} local PARENT_SCOPE)
        break()
      endif()
      get_filename_component(dir "${dir}" DIRECTORY)
    endwhile()
  endif()
endfunction()

# The layers file `rel` may include, into ${out}; "any" where it is not checked.
function(allowed rel out)
  if(rel MATCHES "(^|/)(tests|bench|fuzz)/" OR rel MATCHES "^cli/")
    set(${out} any PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/layer/")
    set(${out} "kl" PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/.*\\.gpu\\.cuh$")
    set(${out} "kl;body;family;model;validate" PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/.*\\.cuh$")
    set(${out} "kl;body" PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/.*\\.sim\\.cpp$")
    set(${out} "kl;body;family;model;sim" PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/.*\\.(suite\\.cpp|gpu\\.cu)$")
    set(${out} "kl;body;family;model;validate" PARENT_SCOPE)
  elseif(rel MATCHES "^kernels/")
    set(${out} "kl;body;family;model" PARENT_SCOPE)
  elseif(rel MATCHES "^model/")
    set(${out} "model" PARENT_SCOPE)
  elseif(rel MATCHES "^sim/estimators/")
    set(${out} "kl;body;family;model;sim" PARENT_SCOPE)
  elseif(rel MATCHES "^sim/")
    set(${out} "kl;model;sim" PARENT_SCOPE)
  elseif(rel MATCHES "^sweep/")
    set(${out} "kl;model;sim;sweep" PARENT_SCOPE)
  elseif(rel MATCHES "^validate/")
    set(${out} "kl;model;sim;validate" PARENT_SCOPE)
  elseif(rel MATCHES "^reports/")
    set(${out} "model;sim;sweep;validate;reports" PARENT_SCOPE)
  else()
    set(${out} any PARENT_SCOPE)
  endif()
endfunction()

set(globs)
foreach(top model kernels sim sweep validate reports cli)
  foreach(ext cpp hpp cu cuh)
    list(APPEND globs "${ROOT}/${top}/*.${ext}")
  endforeach()
endforeach()
file(GLOB_RECURSE sources RELATIVE "${ROOT}" ${globs})
list(FILTER sources EXCLUDE REGEX "/node_modules/")
list(SORT sources)

set(violations 0)
set(checked 0)
foreach(rel IN LISTS sources)
  allowed("${rel}" may)
  if(may STREQUAL "any")
    continue()
  endif()
  math(EXPR checked "${checked} + 1")
  get_filename_component(dir "${ROOT}/${rel}" DIRECTORY)
  string(REGEX MATCH "^[^/]+" top "${rel}")
  file(STRINGS "${ROOT}/${rel}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "#[ \t]*include[ \t]*\"([^\"]+)\"")
      continue()
    endif()
    set(include "${CMAKE_MATCH_1}")
    reached("${include}" "${dir}" "${top}" layer)
    if(layer STREQUAL "local")
      continue()
    endif()
    if(layer STREQUAL "")
      message("${rel}: #include \"${include}\" reaches nothing this check knows (a layer's own file goes beside it)")
      math(EXPR violations "${violations} + 1")
    elseif(NOT layer IN_LIST may)
      string(REPLACE ";" ", " may_text "${may}")
      message("${rel}: #include \"${include}\" reaches ${layer}; this file may include only: ${may_text}")
      math(EXPR violations "${violations} + 1")
    endif()
  endforeach()
endforeach()

if(checked EQUAL 0)
  message(FATAL_ERROR "check_layers: no source file to check under ${ROOT}")
endif()
if(violations GREATER 0)
  message(FATAL_ERROR "check_layers: ${violations} include(s) break the layers (cmake/check_layers.cmake says which "
                      "file may include what)")
endif()
message("check_layers: ${checked} files, every include within its layers")
