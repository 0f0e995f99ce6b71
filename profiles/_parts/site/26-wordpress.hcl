# WordPress on the host: every PHP extension it needs (for every SAPI the
# profile runs: CGI and FPM read the same extensions), the core files from
# the distribution's package (Debian's; on almalinux-9 EPEL's files alone,
# below), and, while the docroot holds no site yet,
# core and a wp-config.php there, so that WordPress answers before the
# fixture is seeded. `wptest seed` then replaces core and the config.
#
# It runs after the profile's own PHP (10-*.hcl: php-cgi) and the FPM part
# (25-fpm.hcl): on Debian the wordpress package asks for some PHP and would
# pull in mod_php with Apache if none were there yet.

platform "debian-12" {
  packages = {
    php       = "php${var.php_version}" # names the PHP the wordpress package wants (not mod_php)
    wordpress = "wordpress"
  }
  paths = {
    wp_core = "/usr/share/wordpress"
  }
  values = {
    php_extensions = [for e in ["mysql", "gd", "xml", "mbstring", "curl", "zip", "intl"] : "php${var.php_version}-${e}"]
  }
}

platform "debian-13" {
  packages = {
    php       = "php${var.php_version}" # names the PHP the wordpress package wants (not mod_php)
    wordpress = "wordpress"
  }
  paths = {
    wp_core = "/usr/share/wordpress"
  }
  values = {
    php_extensions = [for e in ["mysql", "gd", "xml", "mbstring", "curl", "zip", "intl"] : "php${var.php_version}-${e}"]
  }
}

# EPEL's wordpress package requires httpd and the php meta-package (and so
# PHP-FPM): installed as a package it would put web servers and PHP SAPIs
# on the host that the profile does not run. Its files are unpacked
# instead (command.wordpress_epel_files), into a directory of wptest's.
platform "almalinux-9" {
  packages = {
    php       = "php-common"
    wordpress = "wordpress" # EPEL
  }
  paths = {
    wp_core = "/usr/local/share/wptest/wordpress"
  }
  values = {
    php_extensions = ["php-mysqlnd", "php-gd", "php-xml", "php-mbstring", "php-intl"]
  }
}

# php-cli everywhere: seeding runs WordPress's own code as the site user.
package "php_extensions" {
  names = distinct(concat([platform.packages.php_cli, platform.packages.php_posix], platform.values.php_extensions))
}

variable "wp_themes" {
  type        = list(string)
  default     = ["twentytwentythree"]
  description = "WordPress's bundled themes the site uses, installed with core where the platform packages them apart (Debian: wordpress-theme-NAME; each Debian release recommends only its newest); EPEL's core has them. The shipped fixtures' sites use twentytwentythree."
  validation {
    condition     = length([for t in var.wp_themes : t if !can(regex("^[a-z0-9][a-z0-9-]{0,62}$", t))]) == 0
    error_message = "wp_themes are theme directory names: lower-case letters, digits and dashes."
  }
}

package "wordpress" {
  when  = platform.package_manager == "apt"
  names = concat([platform.packages.php, platform.packages.wordpress], [for t in var.wp_themes : "wordpress-theme-${t}"])
}

# almalinux-9: EPEL's WordPress, its files only. The rpm is downloaded
# without its dependencies and unpacked; of what it requires, the PHP
# libraries it links to are installed, never a web server, the php
# meta-package or a PHP SAPI (the profile installs what it runs itself).
package "wordpress_unpack" {
  when  = platform.package_manager == "dnf"
  names = ["dnf-plugins-core", "cpio"]
}

command "wordpress_epel_files" {
  when    = platform.package_manager == "dnf"
  creates = "${platform.paths.wp_core}/wp-includes/version.php"
  timeout = "10m"
  run     = <<-EOT
    set -eu
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cd "$tmp"
    dnf -q download ${platform.packages.wordpress}
    set -- ./${platform.packages.wordpress}-*.noarch.rpm
    [ -f "$1" ] || { echo "dnf download ${platform.packages.wordpress}: no rpm (is EPEL enabled?)" >&2; exit 1; }
    # dnf download checks the repository's checksum, not the signature.
    rpm --import /etc/pki/rpm-gpg/RPM-GPG-KEY-EPEL-9
    rpm -K "$1" | grep -q ': digests signatures OK$' || { echo "$1: not signed by EPEL's key: $(rpm -K "$1")" >&2; exit 1; }
    libs=$(rpm -qp --requires "$1" | awk '{ print $1 }' | grep -v -E '^(rpmlib\(|/|httpd|nginx|webserver|php$|php\(httpd\)|php-fpm|php-cli|php-cgi|mod_php)' | sort -u)
    if [ -n "$libs" ]; then dnf install -y --setopt=install_weak_deps=False $libs; fi
    mkdir x
    (cd x && rpm2cpio "../$1" | cpio -idm --quiet './usr/share/wordpress/*')
    test -f x/usr/share/wordpress/wp-includes/version.php
    install -d -m 0755 "$(dirname ${platform.paths.wp_core})"
    rm -rf ${platform.paths.wp_core}.tmp
    cp -a x/usr/share/wordpress ${platform.paths.wp_core}.tmp
    mv ${platform.paths.wp_core}.tmp ${platform.paths.wp_core}
  EOT
}

file "wp_site_script" {
  path   = "${local.lib_dir}/wptest-wp-site"
  source = "templates/shared/wptest-wp-site"
  mode   = "0755"
}

# Only while the docroot has no WordPress: core from the package and a
# config. The credentials file PHP reads always names the site database's
# (seeding writes the same). Never touches a seeded site otherwise.
command "wordpress_core" {
  unless = "${local.lib_dir}/wptest-wp-site --check ${platform.paths.wp_core} ${local.docroot} ${var.site_user} ${local.db_env}"
  run    = "${local.lib_dir}/wptest-wp-site ${platform.paths.wp_core} ${local.docroot} ${var.site_user} ${local.db_env}"
}

fact "wordpress_version" {
  run = "sed -n \"s/^\\$wp_version = '\\(.*\\)';/\\1/p\" ${platform.paths.wp_core}/wp-includes/version.php 2>/dev/null | grep . || echo not installed"
}

# A WordPress page through the profile's web server: 200 only when PHP has
# WordPress's extensions and reaches the database (else WordPress answers
# 500: "Requirements Not Met" or "Error establishing a database
# connection"). The installer page answers on a seeded site too ("Already
# Installed").
check "wordpress_page" {
  timeout = "30s"
  http {
    url               = "http://127.0.0.1:${var.http_port}/wp-admin/install.php"
    expect_status     = 200
    expect_body_regex = "WordPress"
  }
}

site {
  docroot  = local.docroot
  owner    = var.site_user
  group    = var.site_user
  php      = "php"
  core     = platform.paths.wp_core
  database = local.db_env
  rewrite  = "htaccess"
}
