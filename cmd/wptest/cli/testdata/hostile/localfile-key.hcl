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
# A key on the machine running wptest, uploaded to the server.
profile "cpanel-apache" {
  vars = { ruid2_source_url = "local+file://@KEY@" } # <- refused
}
