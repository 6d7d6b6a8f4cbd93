dnl config.m4 for the excimer extension (php-excimer-sampler).
PHP_ARG_ENABLE([excimer],
  [whether to enable the excimer sampling profiler],
  [AS_HELP_STRING([--enable-excimer], [Enable the excimer sampling profiler])])

if test "$PHP_EXCIMER" != "no"; then
  dnl NTS only: the process's state (timers, the sender thread, the engine's
  dnl hooks, request tiers) lives in file statics, one per process, which a
  dnl thread-safe PHP would share between its request threads. phpize has
  dnl set PHP_THREAD_SAFETY from ZTS in main/php_config.h by now (and
  dnl --enable-zts sets it in php-src's tree). README: "NTS only".
  if test "$PHP_THREAD_SAFETY" = "yes"; then
    AC_MSG_ERROR([excimer (php-excimer-sampler) supports only non-thread-safe PHP (NTS), as Debian's php-fpm, php-cgi, php-cli and Apache's mod_php with the prefork MPM are; this PHP is thread-safe (ZTS). See php-excimer-sampler/README.md, 'Threads: NTS only'.])
  fi
  AC_SEARCH_LIBS([timer_create], [rt])
  AC_SEARCH_LIBS([pthread_create], [pthread])
  dnl hiredis: the Redis protocol of the native Arc Lamp transport
  PHP_ADD_LIBRARY(hiredis, 1, EXCIMER_SHARED_LIBADD)
  dnl zlib: common/atomicfile (xhprof.output_dir files) can gzip what it writes
  PHP_ADD_LIBRARY(z, 1, EXCIMER_SHARED_LIBADD)
  PHP_SUBST(EXCIMER_SHARED_LIBADD)
  dnl common/: the project's one Redis client and its Redis Cluster layer,
  dnl HOST:PORT parser, clock, run line writer and atomic file writer, copied
  dnl next to src/ by the
  dnl top-level Makefile (see EXT_COMMON there).
  EXCIMER_SOURCES="src/excimer.c src/timerlib.c src/excimer_timer.c src/excimer_profiler.c \
    src/stack_store.c src/excimer_log.c src/excimer_arclamp.c src/transport.c src/sender.c \
    src/hooks.c src/hprof.c src/hprof_output.c src/hprof_collect.c src/fpm_worker.c src/tiers.c src/tiers_hook.c \
    common/redisconn.c common/rediscluster.c common/netaddr.c common/clock.c common/cpuclock.c common/strbuf.c \
    common/tierhist.c common/tierline.c common/linefields.c common/runline.c common/fixedhash.c \
    common/stackline.c common/atomicfile.c common/dirstream.c common/fdio.c"
  EXCIMER_CFLAGS="-std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
    -Wno-sign-compare -Wno-missing-field-initializers"
  PHP_NEW_EXTENSION(excimer, $EXCIMER_SOURCES, $ext_shared,, $EXCIMER_CFLAGS)
  PHP_ADD_BUILD_DIR([$ext_builddir/src])
  PHP_ADD_BUILD_DIR([$ext_builddir/common])
  PHP_ADD_INCLUDE([$ext_srcdir/common])
fi
