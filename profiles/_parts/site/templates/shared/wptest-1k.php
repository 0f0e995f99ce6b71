<html>
<head><title>Test Document.</title>
<body>
<h1>Test Document.</h1>
<p>
<?='This is a 1024 byte HTML file.'?><br />
aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa<br />
bbbbbbbbbbbbbbbbbbbbbbbbbbbbbb<br />
cccccccccccccccccccccccccccccc<br />
dddddddddddddddddddddddddddddd<br />
eeeeeeeeeeeeeeeeeeeeeeeeeeeeee<br />
ffffffffffffffffffffffffffffff<br />
gggggggggggggggggggggggggggggg<br />
hhhhhhhhhhhhhhhhhhhhhhhhhhhhhh<br />
iiiiiiiiiiiiiiiiiiiiiiiiiiiiii<br />
jjjjjjjjjjjjjjjjjjjjjjjjjjjjjj<br />
kkkkkkkkkkkkkkkkkkkkkkkkkkkkkk<br />
llllllllllllllllllllllllllllll<br />
mmmmmmmmmmmmmmmmmmmmmmmmmmmmmm<br />
nnnnnnnnnnnnnnnnnnnnnnnnnnnnnn<br />
oooooooooooooooooooooooooooooo<br />
pppppppppppppppppppppppppppppp<br />
qqqqqqqqqqqqqqqqqqqqqqqqqqqqqq<br />
rrrrrrrrrrrrrrrrrrrrrrrrrrrrrr<br />
ssssssssssssssssssssssssssssss<br />
tttttttttttttttttttttttttttttt<br />
uuuuuuuuuuuuuuuuuuuuuuuuuuuuuu<br />
vvvvvvvvvvvvvvvvvvvvvvvvvvvvvv<br />
wwwwwwwwwwwwwwwwwwwwwwwwwwwwww<br />
xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx<br />
</p>
</body>
</html>
