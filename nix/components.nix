# Which files of `make install` (paths relative to $out, see make-flags.nix)
# make up each package. nix/package.nix builds everything with the project's
# Makefile and then keeps exactly these files (nix/split.sh); `files = null`
# keeps everything. nix/tests/test_nix.py checks that every listed file is
# installed and that together the lists cover everything `make install`
# installs, so a file added to the Makefile cannot silently go missing.
{
  arclamp-log = {
    description = "Arc Lamp trace log daemon (socket-activated, Type=notify)";
    mainProgram = "arclamp-log";
    files = [
      "bin/arclamp-log"
      "lib/systemd/system/arclamp-log.socket"
      "lib/systemd/system/arclamp-log.service"
      "lib/sysusers.d/arclamp.conf"
      "lib/tmpfiles.d/arclamp.conf"
      "etc/arclamp/arclamp-log.yaml"
    ];
  };

  arclamp-svg = {
    description = "Arc Lamp flame graphs: renderer, timer job, log compression, metrics";
    mainProgram = "arclamp-svg";
    files = [
      "bin/arclamp-svg"
      "lib/systemd/system/arclamp-svg.service"
      "lib/systemd/system/arclamp-svg.timer"
      "lib/systemd/system/arclamp-svg-compress.service"
      "lib/systemd/system/arclamp-svg-compress.timer"
      "lib/sysusers.d/arclamp.conf"
      "lib/tmpfiles.d/arclamp.conf"
      "etc/arclamp/arclamp-svg.yaml"
      # the web front (nginx/): the snippet and an example site
      "etc/nginx/snippets/arclamp.conf"
      "share/doc/arclamp-svg/examples/nginx-site.conf"
    ];
  };

  arclamp-report = {
    description = "Arc Lamp XHProf reports: flat, diff, aggregate, HTML pages, callgraphs, timer job";
    mainProgram = "arclamp-report";
    files = [
      "bin/arclamp-report"
      "lib/systemd/system/arclamp-report.service"
      "lib/systemd/system/arclamp-report.timer"
      "lib/sysusers.d/arclamp.conf"
      "lib/tmpfiles.d/arclamp.conf"
    ];
  };

  php-excimer-sampler = {
    description = "PHP 8.2 extension excimer (drop-in for php-excimer) with a native Arc Lamp transport";
    phpExtension = "excimer";
    files = [
      "lib/php/extensions/excimer.so"
      "share/php-excimer-sampler/excimer.ini"
      # the hierarchical profiler's API modules (load after excimer)
      "lib/php/extensions/xhprof.so"
      "lib/php/extensions/tideways_xhprof.so"
      "lib/php/extensions/uprofiler.so"
      "share/php-excimer-sampler/xhprof.ini"
      "share/php-excimer-sampler/tideways_xhprof.ini"
      "share/php-excimer-sampler/uprofiler.ini"
      "share/php/Wikimedia/ArcLamp.php"
      # the profiled second PHP-FPM of Debian (arclamp-hprof-fpm.service runs
      # Debian's php-fpm8.2; on NixOS services.arclamp.hprofFpm makes a
      # services.phpfpm pool instead) and the nginx split: reference copies
      "lib/systemd/system/arclamp-hprof-fpm.service"
      "share/php-excimer-sampler/hprof-fpm/php-fpm.conf"
      "share/php-excimer-sampler/hprof-fpm/pool.d/www.conf"
      "share/php-excimer-sampler/hprof-fpm/conf.d/90-arclamp-hprof.ini"
      "etc/nginx/snippets/arclamp-hprof-split.conf"
    ];
  };

  # Everything in one package (the flake's `default`).
  arclamp = {
    description = "Arc Lamp: arclamp-log, arclamp-svg, arclamp-report and the excimer PHP extension";
    mainProgram = "arclamp-log";
    phpExtension = "excimer";
    files = null;
  };
}
