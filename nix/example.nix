# An example NixOS configuration: one host that runs PHP-FPM, collects its
# samples and draws the flame graphs and the XHProf reports. Import it next to the module (see the
# README's Nix section); nix/tests/test_nix.py evaluates it against the stubs.
{ ... }:
{
  services.arclamp.log.enable = true;
  services.arclamp.svg.enable = true;
  # XHProf reports of the run logs, next to the graphs (linked from index.html).
  services.arclamp.report.enable = true;

  # Keep four weeks of hourly logs instead of two, and read Redis as well.
  services.arclamp.log.settings = {
    logs = [
      { period = "hourly"; format = "%Y-%m-%d_%H.excimer"; retain = 672; }
      { period = "daily"; format = "%Y-%m-%d.excimer"; retain = 45; }
    ];
    redis = { host = "127.0.0.1"; port = 6379; };
    redis_channel = "excimer";
  };
  services.arclamp.svg.settings.title = "Example wiki - {period} - {time}";

  # Accept samples from the web servers of 10.0.0.0/8 too, over UDP (by
  # default there is no UDP socket: only the unix socket, for root and the
  # senders below). IP access lists of a socket unit apply to the sockets it
  # passes to the service, so they go on the socket. Any local user can send
  # to a UDP port: open one only where that is acceptable.
  systemd.sockets.arclamp-log.listenDatagrams = [ "0.0.0.0:7761" ];
  systemd.sockets.arclamp-log.socketConfig = {
    IPAddressDeny = "any";
    IPAddressAllow = [ "localhost" "10.0.0.0/8" ];
  };
  networking.firewall.allowedUDPPorts = [ 7761 ];

  # Profile this host's PHP-FPM pools: every request, into the local daemon.
  # The pools' user must be allowed to send to the unix socket.
  services.arclamp.log.senders = [ "mediawiki" ];
  services.arclamp.phpExtension.enable = true;
  services.arclamp.phpExtension.settings = {
    "excimer.arclamp_target" = "unix:///run/arclamp/ingest.sock";
    "excimer.arclamp_period" = 60;
  };
}
