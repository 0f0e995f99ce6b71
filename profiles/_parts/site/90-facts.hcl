# 90-facts.hcl: versions recorded in the host manifest after every apply.
# Each prints "not installed" rather than failing, so the manifest of any
# profile lists every server on the host.

fact "os" {
  run = ". /etc/os-release && echo \"$PRETTY_NAME\""
}

fact "apache_version" {
  run = "if command -v apache2 >/dev/null; then apache2 -v | head -n1; elif command -v httpd >/dev/null; then httpd -v | head -n1; else echo not installed; fi"
}

# -n: no ini files, so no extension loads just to print a version (a
# quarter of the CPU of each; the line is the same).
fact "php_cli_version" {
  run = "if command -v php >/dev/null; then php -n -v | head -n1; else echo not installed; fi"
}

fact "php_cgi_version" {
  run = "if command -v ${platform.values.php_cgi_exe} >/dev/null; then ${platform.values.php_cgi_exe} -n -v | head -n1; else echo not installed; fi"
}

fact "php_fpm_version" {
  run = "if command -v ${platform.values.php_fpm_exe} >/dev/null; then ${platform.values.php_fpm_exe} -n -v | head -n1; else echo not installed; fi"
}

# The PHP the site runs (CLI, CGI and FPM come from the same packages). The
# cPanel vs corehttpd post ran the same PHP on every server (expect_regex):
# any other PHP here is a deviation, named by the version the host runs.
fact "php_version" {
  run          = "if command -v php >/dev/null; then php -n -r 'echo PHP_VERSION, PHP_EOL;'; else echo not installed; fi"
  expect_regex = "^8\\.4\\."
  deviation    = "PHP %s instead of the post's PHP 8.4"
}

fact "caddy_version" {
  run = "if command -v caddy >/dev/null; then caddy version; else echo not installed; fi"
}

fact "mariadb_version" {
  run = "for b in mariadbd mysqld; do if command -v $b >/dev/null; then $b --version; exit 0; fi; done; for b in /usr/sbin/mariadbd /usr/libexec/mariadbd /usr/sbin/mysqld /usr/libexec/mysqld; do if [ -x $b ]; then $b --version; exit 0; fi; done; echo not installed"
}
