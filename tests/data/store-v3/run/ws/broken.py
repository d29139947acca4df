print(2)
x = (
