# NixOS module for Arc Lamp: services.arclamp.{log,svg,report,phpExtension,hprofFpm}.
#
# The systemd units are the project's own (systemd/*, installed by
# `make install` into the packages' lib/systemd/system and picked up through
# systemd.packages), so they keep every hardening setting of the Debian
# packages. The module only adds drop-ins (NixOS writes the
# systemd.services.<name> definitions below as overrides.conf of the shipped
# unit):
#   - ExecStart= reset and pointed at /etc/arclamp/*.yaml (rendered from
#     `settings`) instead of the packaged default in the store; the command is
#     otherwise the shipped one (arclamp-report's command line names the
#     data directory, `dataDir`; it gets --config /etc/arclamp/arclamp-report.yaml
#     only with an object store, since a --config naming no file is an
#     error);
#   - arclamp-report: OnCalendar= reset to `interval` (by default the
#     shipped schedule), and for a `dataDir` other than /var/lib/arclamp the
#     one directory it writes, <dataDir>/reports, made by tmpfiles and
#     opened with ReadWritePaths= (the unit's StateDirectory= opens only
#     /var/lib/arclamp/reports);
#   - arclamp-log: ExecReload= reset to coreutils' kill (the shipped
#     /bin/kill does not exist on NixOS) and reloadTriggers, so a settings
#     change is applied with SIGHUP instead of a restart;
#   - the socket and the timers enabled (NixOS ignores [Install] of units
#     from packages); arclamp-log.service itself is started by its socket.
#   - with objectStore.type swift or s3: the `object_store:` section of
#     arclamp-svg's YAML and of /etc/arclamp/arclamp-report.yaml (which holds
#     only that section), and arclamp-svg.service and arclamp-report.service
#     opened to the store only, as systemd/object-store.conf does on Debian
#     (PrivateNetwork= off, AF_INET/AF_INET6, IPAddressAllow= the store's
#     addresses under the shipped IPAddressDeny=any, LoadCredential= of the
#     credentials file); with fromStore, arclamp-report.service may also
#     write <dataDir>/logs, where it merges every host's run logs and tier
#     tables (the drop-in's commented ReadWritePaths= line on Debian).
# Besides, the packages' lib/tmpfiles.d/arclamp.conf (systemd/arclamp.tmpfiles:
# /var/lib/arclamp, its logs/ and reports/, owned by arclamp, and the socket's
# directory /run/arclamp, root:arclamp-senders 0750) goes to
# systemd.tmpfiles.packages, so the data directories exist from activation on,
# as on Debian, not only once a service started (StateDirectory=).
#
# hprofFpm is the NixOS form of arclamp-hprof-fpm.service (the Debian unit
# is not used here): NixOS runs every services.phpfpm pool in a master of
# its own (phpfpm-<pool>.service), so the profiled instance is a second pool,
# "arclamp-hprof", the twin of the application's pool, with the settings of
# the shipped conf.d/90-arclamp-hprof.ini; nginx's http block gets the
# shipped split snippet with NixOS's sockets and the share 1/every.
{ config, lib, pkgs, ... }:

let
  inherit (lib) mkOption mkEnableOption mkIf mkMerge mkDefault types literalExpression;

  cfg = config.services.arclamp;
  yaml = pkgs.formats.yaml { };

  logConfigPath = "/etc/arclamp/arclamp-log.yaml";
  svgConfigPath = "/etc/arclamp/arclamp-svg.yaml";
  logConfigFile = yaml.generate "arclamp-log.yaml" cfg.log.settings;
  svgConfigFile = yaml.generate "arclamp-svg.yaml" cfg.svg.settings;

  packageOption = component: mkOption {
    type = types.package;
    default = pkgs.callPackage ./package.nix { inherit component; };
    defaultText = literalExpression
      "pkgs.callPackage <arclamp>/nix/package.nix { component = \"${component}\"; }";
    description = "The ${component} package (nix/package.nix, built against this system's nixpkgs).";
  };

  # php.ini values: strings double-quoted (an assertion refuses `"` and newlines).
  iniValue = v:
    if builtins.isBool v then (if v then "1" else "0")
    else if builtins.isInt v then toString v
    else "\"${v}\"";
  iniText = lib.concatStringsSep "\n"
    (lib.mapAttrsToList (k: v: "${k} = ${iniValue v}") cfg.phpExtension.settings);
  phpExtensions = { enabled, all }:
    builtins.filter (e: (e.extensionName or "") != "excimer") enabled
    ++ [ cfg.phpExtension.package ];
  badIniValues = lib.filterAttrs
    (k: v: builtins.isString v && builtins.match "[^\"\n]*" v == null)
    cfg.phpExtension.settings;

  # arclamp-svg reads <data_dir>/logs unless logs_dir is set; arclamp-log
  # writes to base_path.
  svgLogsDir = cfg.svg.settings.logs_dir or "${cfg.svg.settings.data_dir or "/srv/arclamp"}/logs";
  logBasePath = cfg.log.settings.base_path or "/srv/arclamp/logs";
  svgDataDir = cfg.svg.settings.data_dir or "/srv/arclamp";

  # arclamp-report generate --data-dir D reads D/logs and writes D/reports.
  # The shipped unit's schedule and data directory (systemd/arclamp-report.*):
  # the defaults of `interval` and of the writable directory.
  reportShippedInterval = "*:5/15";
  reportShippedDataDir = "/var/lib/arclamp";
  reportDir = "${cfg.report.dataDir}/reports";
  reportLogsDir = "${cfg.report.dataDir}/logs";
  # arclamp-report's configuration file holds only the object store; it
  # exists (and the command names it) only when a store is configured.
  reportConfigPath = "/etc/arclamp/arclamp-report.yaml";
  reportConfigFile = yaml.generate "arclamp-report.yaml" { object_store = storeSection; };
  reportCommand = "${cfg.report.package}/bin/arclamp-report generate"
    + lib.optionalString storeOn " --config ${reportConfigPath}"
    + " --data-dir ${cfg.report.dataDir} --quiet";

  # --- objectStore ----------------------------------------------------------
  store = cfg.objectStore;
  storeOn = store.type != "none";
  # The YAML `object_store:` section: the keys set (nulls left out, so the
  # program's defaults and the credentials fill the rest). No
  # credentials_file: the program reads $CREDENTIALS_DIRECTORY's.
  storeSection = lib.filterAttrs (n: v: v != null) {
    inherit (store) type region bucket host;
    auth_url = store.authUrl;
    endpoint = store.endpoint;
    from_store = store.fromStore;
    hosts = if store.hosts == [ ] then null else store.hosts;
  };
  # systemd/object-store.conf's settings, as a drop-in of the unit. Lists
  # start with "" (reset): RestrictAddressFamilies= and IPAddressAllow= are
  # then exactly these; IPAddressDeny=any stays as shipped.
  storeCredential = "arclamp-object-store"; # common/src/storeconf.h
  storeServiceConfig = {
    PrivateNetwork = false;
    RestrictAddressFamilies = [ "" "AF_UNIX AF_INET AF_INET6" ];
    IPAddressAllow = [ "" ] ++ store.allowedAddresses;
  } // lib.optionalAttrs (store.credentialsFile != null) {
    LoadCredential = [ "${storeCredential}:${toString store.credentialsFile}" ];
  };
  # The services that talk to the store: arclamp-svg generate and
  # arclamp-report generate (publish, from_store); compress never does.
  storeServices = lib.optional cfg.svg.enable "arclamp-svg"
    ++ lib.optional cfg.report.enable "arclamp-report";

  # --- hprofFpm -----------------------------------------------------------
  hprof = cfg.hprofFpm;
  hprofPoolName = "arclamp-hprof";
  # NixOS's socket of a pool without `listen`
  hprofSocket = "/run/phpfpm/${hprofPoolName}.sock";
  pools = config.services.phpfpm.pools;
  mainPool = pools.${hprof.pool} or (throw
    "services.arclamp.hprofFpm.pool must name a services.phpfpm pool (the application's), not ${builtins.toJSON hprof.pool}.");
  hasMainPool = hprof.pool != null && pools ? ${hprof.pool};
  nonEmptyLines = text: builtins.filter (l: builtins.isString l && l != "") (builtins.split "\n" text);
  # The directives of the shipped ini file and snippet (comments dropped:
  # they speak of Debian's paths), one source for both systems.
  shippedHprofIni = builtins.filter (l: builtins.match "[[:space:]]*;.*" l == null)
    (nonEmptyLines (builtins.readFile ../php-excimer-sampler/hprof-fpm/conf.d/90-arclamp-hprof.ini));
  shippedSplit = builtins.filter (l: builtins.match "[[:space:]]*#.*" l == null)
    (nonEmptyLines (builtins.readFile ../nginx/arclamp-hprof-split.conf));
  # split_clients takes a percentage with at most two decimals: 100/every,
  # in hundredths
  hundredths = 10000 / hprof.every;
  twoDigits = n: if n < 10 then "0${toString n}" else toString n;
  hprofPercent = "${toString (hundredths / 100)}.${twoDigits (hundredths - hundredths / 100 * 100)}%";
  nginxConfig = lib.concatStringsSep "\n" (map
    (builtins.replaceStrings
      [ "unix:/run/php/php8.2-fpm.sock" "unix:/run/arclamp-hprof-fpm/php-fpm.sock" "0.1%" ]
      [ "unix:${mainPool.socket}" "unix:${hprofSocket}" hprofPercent ])
    shippedSplit) + "\n";
  hprofIniText = lib.concatStringsSep "\n" (
    shippedHprofIni
    ++ map (m: "extension = ${cfg.phpExtension.package}/lib/php/extensions/${m}.so") hprof.apiModules
    ++ lib.mapAttrsToList (k: v: "${k} = ${iniValue v}") hprof.settings);
  badHprofIniValues = lib.filterAttrs
    (k: v: builtins.isString v && builtins.match "[^\"\n]*" v == null)
    hprof.settings;
  # what the pool's process manager is, which the twin does not copy
  isPmSetting = n: n == "pm" || lib.hasPrefix "pm." n || n == "listen" || n == "user" || n == "group";
in
{
  options.services.arclamp = {
    log = {
      enable = mkEnableOption ''
        arclamp-log, the Arc Lamp trace log daemon. Its socket
        (arclamp-log.socket: /run/arclamp/ingest.sock, channel "excimer",
        root:arclamp-senders 0660; UDP only when added, see
        systemd/README.md) is enabled and starts the daemon on the first
        sample; trace logs go to /var/lib/arclamp/logs'';

      package = packageOption "arclamp-log";

      senders = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "mediawiki" ];
        description = ''
          Users that may send samples to the unix ingest socket: the
          members of the group arclamp-senders (root may always send).
          Every accepted line costs disk and graphs, so list only the users
          the PHP-FPM pools that load the extension run as
          (services.phpfpm.pools.<name>.user); their workers get the group
          at their next start (php-fpm calls initgroups()).
        '';
      };

      allowedAddresses = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "10.64.0.0/24" ];
        description = ''
          Addresses arclamp-log may reach besides localhost
          (IPAddressAllow=, under the shipped IPAddressDeny=any): a Redis on
          another host, or every node of a Redis Cluster
          (settings.redis.cluster = [ "10.64.0.11:7000" ... ]: a failover
          moves a shard to a replica's address, so list every node, or
          their network). Empty: localhost only, as shipped.
        '';
      };

      settings = mkOption {
        type = yaml.type;
        default = { };
        description = ''
          arclamp-log's configuration (every key: arclamp-log/README.md),
          written to ${logConfigPath}. The defaults are those of the packaged
          systemd/arclamp-log.yaml: base_path = "/var/lib/arclamp/logs", the
          hourly (retain 336) and daily (retain 45) log groups, and
          metrics_file = "/var/lib/arclamp/arclamp-log.prom"; a key set here
          replaces its default, the others stay. The service can only write
          below /var/lib/arclamp (ProtectSystem=strict). A change is applied
          with `systemctl reload` (SIGHUP), not a restart.
        '';
        example = literalExpression ''
          {
            redis = { host = "127.0.0.1"; port = 6379; };
            redis_channel = "excimer";
          }
        '';
      };
    };

    svg = {
      enable = mkEnableOption ''
        arclamp-svg's timer jobs: arclamp-svg.timer draws flame graphs every
        15 minutes into /var/lib/arclamp/svgs (with /var/lib/arclamp/index.html)
        and arclamp-svg-compress.timer compresses trace logs older than a day'';

      package = packageOption "arclamp-svg";

      settings = mkOption {
        type = yaml.type;
        default = { };
        description = ''
          arclamp-svg's configuration (every key: arclamp-svg/README.md),
          written to ${svgConfigPath}. The defaults are those of the packaged
          systemd/arclamp-svg.yaml: data_dir = "/var/lib/arclamp" and
          title = "MediaWiki - {period} - {time}"; a key set here replaces its
          default, the others stay.
        '';
        example = literalExpression ''
          {
            functions = [ { function = "UploadBase::performUpload"; label = "Upload"; } ];
          }
        '';
      };

      compress.enable = mkOption {
        type = types.bool;
        default = true;
        description = "Whether to enable arclamp-svg-compress.timer (daily: gzips trace logs older than a day).";
      };
    };

    report = {
      enable = mkEnableOption ''
        arclamp-report's timer job: arclamp-report.timer writes, every 15
        minutes, the XHProf reports of the run logs under <dataDir>/logs
        (the mean run per entry point and hour, its callgraph, the diff
        against the previous hour, a summary) into <dataDir>/reports, with
        <dataDir>/reports/index.html, which arclamp-svg's index links'';

      package = packageOption "arclamp-report";

      dataDir = mkOption {
        type = types.str;
        default = svgDataDir;
        defaultText = literalExpression "config.services.arclamp.svg.settings.data_dir (\"/var/lib/arclamp\")";
        example = "/srv/arclamp";
        description = ''
          The data directory: run logs are read from <dataDir>/logs
          (arclamp-log's base_path) and pages written to <dataDir>/reports.
          By default arclamp-svg's data_dir, so that its index page links
          the reports. The service writes only <dataDir>/reports; for a
          directory other than /var/lib/arclamp the module creates it
          (systemd.tmpfiles.rules) and opens it (ReadWritePaths=).
        '';
      };

      interval = mkOption {
        type = types.str;
        default = reportShippedInterval;
        example = "hourly";
        description = ''
          When arclamp-report.timer runs the job (OnCalendar=, see
          systemd.time(7)). The default, every 15 minutes five minutes after
          arclamp-svg.timer, is the shipped unit's; runs missed while the
          machine was off happen at boot (Persistent=).
        '';
      };
    };

    objectStore = {
      type = mkOption {
        type = types.enum [ "none" "swift" "s3" ];
        default = "none";
        description = ''
          The object store arclamp-svg generate publishes its logs, graphs
          and index to, and arclamp-report generate its run logs, tier
          tables and pages (and with fromStore both draw from): "none"
          (nothing, and the units keep no network at all), "swift" (v1
          auth) or "s3" (SigV4). Otherwise the `object_store:` section of
          arclamp-svg's configuration and ${reportConfigPath} (that section
          only, named by the report's --config) are written from these
          options, and arclamp-svg.service and arclamp-report.service (those
          enabled) may reach allowedAddresses and nothing else. Other keys
          of arclamp-svg's section (arclamp-svg/README.md: retention_days,
          container_prefix, timeouts, ...) can be set in
          services.arclamp.svg.settings.object_store; arclamp-report's
          file holds these options' keys only (its defaults for the rest,
          arclamp-report/README.md "Object storage").
        '';
      };

      authUrl = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "https://swift.example.org/auth/v1.0";
        description = "Swift: the v1 auth URL (auth_url; else ST_AUTH of the credentials file).";
      };

      endpoint = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "https://s3.example.org";
        description = "S3: the endpoint URL (endpoint; else AWS_ENDPOINT_URL of the credentials file).";
      };

      region = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "us-east-1";
        description = "S3: the region (region; else AWS_REGION, else us-east-1).";
      };

      bucket = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "arclamp";
        description = "S3: the bucket; the containers become key prefixes in it.";
      };

      host = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "eqiad";
        description = ''
          The prefix of the logs this host publishes (<host>/<name>.log.gz;
          arclamp-report's run logs and tier tables likewise),
          1 to 64 of [A-Za-z0-9_.-]; null: no prefix (the original Arc
          Lamp's names, for a single host).
        '';
      };

      fromStore = mkOption {
        type = types.bool;
        default = false;
        description = ''
          Draw the graphs from the logs every host published to the store
          (merged per bucket), instead of the local ones (from_store); so
          does arclamp-report for its pages, merging every host's run logs
          and tier tables into <report.dataDir>/logs, which its unit may
          then write (ReadWritePaths=; made by tmpfiles for a dataDir other
          than /var/lib/arclamp).
        '';
      };

      hosts = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "eqiad" "codfw" ];
        description = "With fromStore: the hosts whose logs are read (empty: all).";
      };

      credentialsFile = mkOption {
        type = types.nullOr types.path;
        default = null;
        example = "/run/secrets/arclamp-object-store";
        description = ''
          A file of KEY=value lines (ST_AUTH, ST_USER, ST_KEY,
          OS_STORAGE_URL, OS_AUTH_TOKEN, AWS_ENDPOINT_URL, AWS_REGION,
          AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), root's, mode 0600,
          outside the Nix store (give it as a string: a Nix path would be
          copied into the world-readable store, and is refused). systemd
          hands it to the service (LoadCredential=arclamp-object-store:...),
          where the program reads it; the arclamp user needs no access to
          it.
        '';
      };

      allowedAddresses = mkOption {
        type = types.listOf types.str;
        default = [ ];
        example = [ "10.64.0.0/24" "localhost" ];
        description = ''
          The addresses or prefixes arclamp-svg.service and
          arclamp-report.service may reach
          (IPAddressAllow=, under the shipped IPAddressDeny=any): the
          store's proxies or endpoint, and the DNS server when the store is
          named by host name ("localhost" for a resolver on this host).
          Required with a store; [ "any" ] for one whose addresses cannot
          be listed (a cloud S3 endpoint).
        '';
      };
    };

    phpExtension = {
      enable = mkEnableOption ''
        the excimer extension (php-excimer-sampler) in the PHP of
        services.phpfpm: services.phpfpm.phpPackage is set to
        services.arclamp.phpExtension.finalPackage (pools with their own
        phpPackage can use that option too)'';

      php = mkOption {
        type = types.package;
        default = pkgs.php82;
        defaultText = literalExpression "pkgs.php82";
        description = ''
          The PHP the extension is built for and loaded into (PHP 8.2; it may
          already carry extensions, e.g. `pkgs.php82.withExtensions (...)`:
          they are kept, except nixpkgs' own excimer, which this one replaces).
        '';
      };

      package = mkOption {
        type = types.package;
        default = pkgs.callPackage ./package.nix {
          component = "php-excimer-sampler";
          php82 = cfg.phpExtension.php;
        };
        defaultText = literalExpression ''
          pkgs.callPackage <arclamp>/nix/package.nix {
            component = "php-excimer-sampler";
            php82 = config.services.arclamp.phpExtension.php;
          }'';
        description = "The extension package (needs passthru.extensionName = \"excimer\").";
      };

      settings = mkOption {
        type = types.attrsOf (types.oneOf [ types.bool types.int types.str ]);
        default = { };
        description = ''
          php.ini settings of the extension. Zero-code collection is off by
          default, as in the packaged excimer.ini; set
          excimer.arclamp_target to turn it on (see
          php-excimer-sampler/README.md).
        '';
        example = literalExpression ''
          {
            "excimer.arclamp_target" = "unix:///run/arclamp/ingest.sock";
            "excimer.arclamp_period" = 60;
          }
        '';
      };

      finalPackage = mkOption {
        type = types.package;
        readOnly = true;
        default = cfg.phpExtension.php.buildEnv {
          extensions = phpExtensions;
          extraConfig = iniText;
        };
        defaultText = literalExpression "php.buildEnv { extensions = enabled ++ [ excimer ]; extraConfig = <settings>; }";
        description = "The PHP with the extension loaded and its settings (read-only).";
      };
    };
    hprofFpm = {
      enable = mkEnableOption ''
        a second PHP-FPM master that profiles every request it serves
        hierarchically (excimer.hprof_sample_rate = 1, runs sent to
        arclamp-log), with nginx sending it 1 request in `every` of the pool
        `pool`: the services.phpfpm pool "arclamp-hprof"
        (phpfpm-arclamp-hprof.service), the twin of `pool`. The requests of
        `pool` itself run without the profiler's observers, which once
        loaded cost every call of every request of their master
        (php-excimer-sampler/README.md). Needs phpExtension.enable'';

      pool = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "mediawiki";
        description = ''
          The services.phpfpm pool whose requests are split (required). The
          profiled twin runs as its user and group, with its phpEnv,
          phpOptions and settings (but for the process manager: pm = static
          with `maxChildren` workers), and the PHP of
          services.arclamp.phpExtension with the settings of the shipped
          90-arclamp-hprof.ini and `settings` added.
        '';
      };

      every = mkOption {
        type = types.ints.between 2 10000;
        default = 1000;
        description = ''
          N: nginx sends 1 request in N to the profiled instance
          (split_clients on $request_id, a share of 100/N percent in
          hundredths, so N <= 10000). Each of those requests costs about
          twice its CPU time, and its run (up to excimer.hprof_max_bytes)
          goes to arclamp-log: choose N from the runs per hour the run logs
          should hold (php-excimer-sampler/README.md).
        '';
      };

      maxChildren = mkOption {
        type = types.ints.positive;
        default = 2;
        description = ''
          Workers of the profiled pool (pm = static: they stay, so a
          profiled request runs in a warm process). Two take about 30
          requests a second of 50 ms, i.e. 30,000 a second of the host at
          every = 1000.
        '';
      };

      apiModules = mkOption {
        type = types.listOf (types.enum [ "xhprof" "tideways_xhprof" "uprofiler" ]);
        default = [ ];
        example = [ "xhprof" ];
        description = ''
          API modules loaded into the profiled instance only, for
          application code that calls them itself (XHGui's collector,
          MediaWiki's ProfilerXhprof); a script that profiles itself takes
          that request's run over. The runs of every request need none.
        '';
      };

      settings = mkOption {
        type = types.attrsOf (types.oneOf [ types.bool types.int types.str ]);
        default = { };
        example = literalExpression ''
          { "excimer.hprof_target" = "unix:///run/arclamp/ingest.sock"; }
        '';
        description = ''
          php.ini settings of the profiled instance only, after those of
          phpExtension.settings and of the shipped 90-arclamp-hprof.ini
          (excimer.hprof_sample_rate = 1, excimer.tiers = ""). Runs go to
          excimer.hprof_target, or else to excimer.arclamp_target's server
          (Redis channel "xhprof") or socket.
        '';
      };

      configureNginx = mkOption {
        type = types.bool;
        default = config.services.nginx.enable;
        defaultText = literalExpression "config.services.nginx.enable";
        description = ''
          Whether to add `nginxConfig` to nginx's http block
          (services.nginx.appendHttpConfig). The virtual host's PHP
          location then passes to the split:
          `fastcgi_pass $arclamp_php_backend;` instead of the pool's socket.
        '';
      };

      socket = mkOption {
        type = types.str;
        readOnly = true;
        default = hprofSocket;
        description = "The socket of the profiled pool (read-only).";
      };

      nginxConfig = mkOption {
        type = types.lines;
        readOnly = true;
        default = if hprof.enable && hasMainPool then nginxConfig else "";
        defaultText = literalExpression "<nginx/arclamp-hprof-split.conf with this system's sockets and share>";
        description = ''
          The split for nginx's http block (read-only): the shipped
          nginx/arclamp-hprof-split.conf with the sockets of `pool` and of
          the profiled pool and the share 100/`every` percent. It defines
          $arclamp_php_backend; while the profiled pool is down its share
          goes to `pool`.
        '';
      };
    };
  };

  config = mkMerge [
    # Defaults of the packaged configuration files, key by key, so that a user
    # setting one key keeps the others.
    {
      services.arclamp.log.settings = {
        base_path = mkDefault "/var/lib/arclamp/logs";
        logs = mkDefault [
          { period = "hourly"; format = "%Y-%m-%d_%H.excimer"; retain = 336; }
          { period = "daily"; format = "%Y-%m-%d.excimer"; retain = 45; }
        ];
        metrics_file = mkDefault "/var/lib/arclamp/arclamp-log.prom";
      };
      services.arclamp.svg.settings = {
        data_dir = mkDefault "/var/lib/arclamp";
        title = mkDefault "MediaWiki - {period} - {time}";
      };
    }

    # The system user of the units' User=/Group= and the socket's
    # SocketGroup= (as systemd/arclamp.sysusers; the packages' tmpfiles.d
    # file names both).
    (mkIf (cfg.log.enable || cfg.svg.enable || cfg.report.enable) {
      users.users.arclamp = {
        isSystemUser = true;
        group = "arclamp";
        home = "/var/lib/arclamp";
        description = "Arc Lamp trace logs and flame graphs";
      };
      users.groups.arclamp = { };
      users.groups.arclamp-senders.members = cfg.log.senders;
    })

    (mkIf cfg.log.enable {
      systemd.packages = [ cfg.log.package ];
      systemd.tmpfiles.packages = [ cfg.log.package ];
      environment.etc."arclamp/arclamp-log.yaml".source = logConfigFile;
      systemd.sockets.arclamp-log.wantedBy = [ "sockets.target" ];
      systemd.services.arclamp-log = {
        serviceConfig.ExecStart = [ "" "${cfg.log.package}/bin/arclamp-log --config ${logConfigPath}" ];
        serviceConfig.ExecReload = [ "" "${pkgs.coreutils}/bin/kill -HUP $MAINPID" ];
        serviceConfig.IPAddressAllow = mkIf (cfg.log.allowedAddresses != [ ])
          ([ "" "localhost" ] ++ cfg.log.allowedAddresses);
        reloadTriggers = [ logConfigFile ];
      };
    })

    (mkIf cfg.svg.enable {
      systemd.packages = [ cfg.svg.package ];
      systemd.tmpfiles.packages = [ cfg.svg.package ];
      environment.etc."arclamp/arclamp-svg.yaml".source = svgConfigFile;
      systemd.timers = mkMerge [
        { arclamp-svg.wantedBy = [ "timers.target" ]; }
        (mkIf cfg.svg.compress.enable { arclamp-svg-compress.wantedBy = [ "timers.target" ]; })
      ];
      systemd.services.arclamp-svg.serviceConfig.ExecStart =
        [ "" "${cfg.svg.package}/bin/arclamp-svg generate --config ${svgConfigPath}" ];
      systemd.services.arclamp-svg-compress.serviceConfig.ExecStart =
        [ "" "${cfg.svg.package}/bin/arclamp-svg compress --older-than 1 --config ${svgConfigPath}" ];
    })

    (mkIf storeOn {
      services.arclamp.svg.settings.object_store = storeSection;
      systemd.services = lib.genAttrs storeServices (name: { serviceConfig = storeServiceConfig; });
      assertions = [
        {
          assertion = store.allowedAddresses != [ ];
          message = "services.arclamp.objectStore.allowedAddresses: list the store's addresses (and the DNS server's), or [ \"any\" ]: the service may reach nothing else.";
        }
        {
          assertion = !(builtins.isPath store.credentialsFile);
          message = "services.arclamp.objectStore.credentialsFile must be a string, not a Nix path: a path is copied into the world-readable Nix store.";
        }
        {
          assertion = store.type != "s3" || store.bucket != null;
          message = "services.arclamp.objectStore.bucket is needed with type = \"s3\".";
        }
      ];
    })

    (mkIf (cfg.log.enable && cfg.svg.enable && svgLogsDir != logBasePath) {
      warnings = [
        "services.arclamp: arclamp-svg reads trace logs from ${svgLogsDir} but arclamp-log writes them to ${logBasePath}; set services.arclamp.svg.settings.logs_dir (or data_dir) to match."
      ];
    })

    (mkIf cfg.report.enable (mkMerge [
      {
        systemd.packages = [ cfg.report.package ];
        systemd.tmpfiles.packages = [ cfg.report.package ];
        systemd.timers.arclamp-report = {
          wantedBy = [ "timers.target" ];
          timerConfig.OnCalendar = [ "" cfg.report.interval ];
        };
        systemd.services.arclamp-report.serviceConfig.ExecStart = [ "" reportCommand ];
      }
      # the options' section alone (the keys added in
      # svg.settings.object_store are arclamp-svg's)
      (mkIf storeOn {
        environment.etc."arclamp/arclamp-report.yaml".source = reportConfigFile;
      })
      # from_store: the merged run logs and tier tables go to <dataDir>/logs,
      # which the unit's ProtectSystem=strict keeps read-only
      (mkIf (storeOn && store.fromStore) {
        systemd.services.arclamp-report.serviceConfig.ReadWritePaths = [ reportLogsDir ];
      })
      # (a ReadWritePaths= that does not exist fails the unit; the package's
      # tmpfiles file makes /var/lib/arclamp/logs only)
      (mkIf (storeOn && store.fromStore && cfg.report.dataDir != reportShippedDataDir) {
        systemd.tmpfiles.rules = [ "d ${reportLogsDir} 0755 arclamp arclamp -" ];
      })
      (mkIf (cfg.report.dataDir != reportShippedDataDir) {
        systemd.tmpfiles.rules = [ "d ${reportDir} 0755 arclamp arclamp -" ];
        systemd.services.arclamp-report.serviceConfig.ReadWritePaths = [ reportDir ];
      })
      (mkIf (cfg.log.enable && reportLogsDir != logBasePath) {
        warnings = [
          "services.arclamp: arclamp-report reads run logs from ${reportLogsDir} but arclamp-log writes them to ${logBasePath}; set services.arclamp.report.dataDir to match."
        ];
      })
      (mkIf (cfg.svg.enable && cfg.report.dataDir != svgDataDir) {
        warnings = [
          "services.arclamp: arclamp-report writes its pages to ${reportDir} but arclamp-svg's index (data_dir ${svgDataDir}) links ${svgDataDir}/reports; set services.arclamp.report.dataDir to match."
        ];
      })
    ]))

    (mkIf hprof.enable (mkMerge [
      {
        assertions = [
          {
            assertion = cfg.phpExtension.enable;
            message = "services.arclamp.hprofFpm needs services.arclamp.phpExtension.enable (the extension and its settings).";
          }
          {
            assertion = hasMainPool;
            message = "services.arclamp.hprofFpm.pool must name a services.phpfpm pool (the application's), not ${builtins.toJSON hprof.pool}.";
          }
          {
            assertion = badHprofIniValues == { };
            message = "services.arclamp.hprofFpm.settings: a value contains a double quote or a newline: ${lib.concatStringsSep ", " (lib.attrNames badHprofIniValues)}";
          }
        ];
      }
      # (not conditional on the pool's existence: the pool set's names
      # cannot depend on the pools; a missing one is the assertion's, or
      # mainPool's error)
      (mkIf cfg.phpExtension.enable {
        services.phpfpm.pools.${hprofPoolName} = {
          inherit (mainPool) user group phpEnv phpOptions;
          phpPackage = cfg.phpExtension.php.buildEnv {
            extensions = phpExtensions;
            extraConfig = iniText + "\n" + hprofIniText;
          };
          settings = lib.filterAttrs (n: v: !(isPmSetting n)) mainPool.settings // {
            pm = "static";
            "pm.max_children" = hprof.maxChildren;
          };
        };
        services.nginx.appendHttpConfig = mkIf hprof.configureNginx nginxConfig;
      })
    ]))

    (mkIf cfg.phpExtension.enable {
      services.phpfpm.phpPackage = cfg.phpExtension.finalPackage;
      assertions = [
        {
          assertion = badIniValues == { };
          message = "services.arclamp.phpExtension.settings: a value contains a double quote or a newline: ${lib.concatStringsSep ", " (lib.attrNames badIniValues)}";
        }
        {
          assertion = (cfg.phpExtension.package.extensionName or null) == "excimer";
          message = "services.arclamp.phpExtension.package must be the excimer extension (passthru.extensionName = \"excimer\").";
        }
      ];
    })
  ];
}
