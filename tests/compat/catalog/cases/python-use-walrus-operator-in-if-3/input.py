a = foo()

if a:
    do_bar()
