# WordPress on the host: every PHP extension it needs (for every SAPI the
# profile runs: CGI and FPM read the same extensions), the core files from
# the distribution's package, and, while the docroot holds no site yet,
# core and a wp-config.php there, so that WordPress answers before the
# fixture is seeded. `wptest seed` then replaces core and the config.
#
# It runs after the profile's own PHP (10-*.hcl: php-cgi) and the FPM part
# (25-fpm.hcl): on Debian the wordpress package asks for some PHP and would
# pull in mod_php with Apache if none were there yet.

platform "debian-12" {
  packages = {
    php       = "php8.2" # names the PHP the wordpress package wants (not mod_php)
    wordpress = "wordpress"
  }
  paths = {
    wp_core = "/usr/share/wordpress"
  }
  values = {
    php_extensions = ["php8.2-mysql", "php8.2-gd", "php8.2-xml", "php8.2-mbstring", "php8.2-curl", "php8.2-zip", "php8.2-intl"]
  }
}

platform "almalinux-9" {
  packages = {
    php       = "php-common"
    wordpress = "wordpress" # EPEL
  }
  paths = {
    wp_core = "/usr/share/wordpress"
  }
  values = {
    php_extensions = ["php-mysqlnd", "php-gd", "php-xml", "php-mbstring", "php-intl"]
  }
}

# php-cli everywhere: seeding runs WordPress's own code as the site user.
package "php_extensions" {
  names = distinct(concat([platform.packages.php_cli, platform.packages.php_posix], platform.values.php_extensions))
}

package "wordpress" {
  names = [platform.packages.php, platform.packages.wordpress]
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
