# common.sh: what every benchmark in bench/ checks before it starts (sourced,
# not run).  The sourcing script defines die() first.

# Fail, saying what to install, unless the tools and the installed ranread
# that a benchmark on a pg_virtualenv cluster with fio needs are all here.
check_benchmark_prerequisites() {
    local cmd pkg
    for cmd in pg_virtualenv:postgresql-common pg_config:postgresql-server-dev-15 \
               psql:postgresql-client-15 fio:fio python3:python3; do
        pkg=${cmd#*:}
        command -v "${cmd%%:*}" >/dev/null ||
            die "${cmd%%:*} not found: apt-get install $pkg"
    done
    local control so
    control="$(pg_config --sharedir)/extension/ranread.control"
    so="$(pg_config --pkglibdir)/ranread.so"
    [[ -f $control && -f $so ]] ||
        die "ranread is not installed ($control or $so is missing): run \`make && make install\` first"
    # An instrumented build (make with -fsanitize=address) cannot even load
    # into a normal server, and would measure the sanitizer anyway.
    ! grep -q -a -e __asan_init -e __tsan_init -e __ubsan_handle "$so" ||
        die "the installed ranread.so is a sanitizer (ASan/TSan/UBSan) build: install a normal one (make clean && make && make install)"
    pg_major=$(pg_config --version | sed -n 's/^PostgreSQL \([0-9]*\).*/\1/p')
    [[ -x /usr/lib/postgresql/$pg_major/bin/postgres ]] ||
        die "no PostgreSQL $pg_major server for pg_virtualenv: apt-get install postgresql-$pg_major"
}
