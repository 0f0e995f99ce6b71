experiment "hostile" {
  http_port  = 8080
  https_port = 8443
}
machines "local" {}
fixture "minimal" {
  seed = 1
}
scenario "p" {
  kind     = "page"
  visitors = [1]
  duration = "1s"
}
# A link to the key from a harmless-looking directory.
profile "cpanel-apache" {
  vars = { ruid2_source_url = "local+file://@LINK@" } # <- refused
}
