def f():
    return load_data(1)


def g():
    return load_data(2)
