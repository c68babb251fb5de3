# Input filter of docs/Doxyfile: lets doxygen see every branch of the headers' feature
# conditionals, so that the reference documents the whole API whatever a build turns off. Each
# #if / #ifdef / #ifndef / #elif / #else / #endif of a header becomes an empty line (the line
# count stays, so warnings point at the real lines), except include guards and tests of
# __cplusplus, which doxygen evaluates as a C compiler would. opt.h passes whole: its
# #ifndef / #define pairs are the options and their defaults. Other files pass unchanged.
BEGIN {
    whole = ARGV[1] !~ /\.h$/ || ARGV[1] ~ /(^|\/)opt\.h$/
    depth = 0
}
whole { print; next }
/^[ \t]*#[ \t]*if/ {
    depth++
    keep[depth] = $0 ~ /__cplusplus/ || $0 ~ /^[ \t]*#[ \t]*ifndef[ \t]+ZMOTE[A-Z0-9_]*_H[ \t]*$/
    print (keep[depth] ? $0 : "")
    next
}
/^[ \t]*#[ \t]*(elif|else)/ { print (keep[depth] ? $0 : ""); next }
/^[ \t]*#[ \t]*endif/ { print (keep[depth] ? $0 : ""); depth--; next }
{ print }
