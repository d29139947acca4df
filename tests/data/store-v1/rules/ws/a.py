def f():
    return fetch_data(1)


def g():
    return fetch_data(x)
