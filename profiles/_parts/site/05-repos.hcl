# Repositories before any package: on almalinux-9 WordPress core and Caddy
# come from EPEL (a Fedora project repository every RHEL-family host can
# enable with one package from its own extras). Debian needs none.

package "epel" {
  when  = platform.package_manager == "dnf"
  names = ["epel-release"]
}
