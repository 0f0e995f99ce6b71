# 90-facts.hcl: versions recorded in the host manifest after every apply.
# Byte-identical in every profile (profiles/shared_test.go). Each prints
# "not installed" rather than failing, so the manifest of any profile lists
# every server on the host.

fact "os" {
  run = ". /etc/os-release && echo \"$PRETTY_NAME\""
}

fact "apache_version" {
  run = "if command -v apache2 >/dev/null; then apache2 -v | head -n1; elif command -v httpd >/dev/null; then httpd -v | head -n1; else echo not installed; fi"
}

fact "php_cli_version" {
  run = "if command -v php >/dev/null; then php -v | head -n1; else echo not installed; fi"
}

fact "php_cgi_version" {
  run = "for b in php-cgi8.2 php-cgi; do if command -v $b >/dev/null; then $b -v | head -n1; exit 0; fi; done; echo not installed"
}

fact "php_fpm_version" {
  run = "for b in php-fpm8.2 php-fpm; do if command -v $b >/dev/null; then $b -v | head -n1; exit 0; fi; done; echo not installed"
}

fact "caddy_version" {
  run = "if command -v caddy >/dev/null; then caddy version; else echo not installed; fi"
}

fact "mariadb_version" {
  run = "for b in mariadbd mysqld; do if command -v $b >/dev/null; then $b --version; exit 0; fi; done; for b in /usr/sbin/mariadbd /usr/libexec/mariadbd /usr/sbin/mysqld /usr/libexec/mysqld; do if [ -x $b ]; then $b --version; exit 0; fi; done; echo not installed"
}
